// Which of several inputs costs a step the most CPU: the one a complexity test then measures, when
// the worst case depends on the step (a pattern's character class, say).
import { repeatTo } from "./hostile-names.js";

/** A kind of input, and how to build one of a size. */
export interface InputFamily<I> {
  readonly label: string;
  readonly build: (size: number) => I;
}

/** Characters that start, end, or fall outside the classes of the rules' patterns. */
const CHARACTERS = [
  ..." \taZ09!#.-_/\\",
  "\u0000",
  "\u0001",
  "\u007F",
  "\u00A0",
  "\u00E9",
  "\u0301",
  "\u200B",
  "\u3000",
  "\uFEFF",
  "\u{1F600}",
  "\uD83D",
];

/**
 * Text a regular expression has to read in full: a run of one character followed by another (which
 * an anchored pattern may refuse only at the end), for each character of interest; and runs that
 * alternate between two.
 */
export const TEXT_FAMILIES: readonly InputFamily<string>[] = [
  ...CHARACTERS.flatMap((c) => [
    { label: `${codePoint(c)} repeated`, build: (size: number) => repeatTo(c, size) },
    {
      label: `${codePoint(c)} repeated, then U+0001`,
      build: (size: number) => `${repeatTo(c, size - 1)}\u0001`,
    },
  ]),
  { label: '"a " repeated', build: (size) => repeatTo("a ", size) },
  { label: '". " repeated', build: (size) => repeatTo(". ", size) },
  { label: '"#0" repeated', build: (size) => repeatTo("#0", size) },
];

/** The family whose input of `size` costs `step` the most CPU time (one call each, after one to warm up). */
export function costliest<I>(
  families: readonly InputFamily<I>[],
  step: (input: I) => unknown,
  size: number,
): InputFamily<I> {
  let worst = families[0] as InputFamily<I>;
  let worstMicros = -1;
  for (const family of families) {
    const input = family.build(size);
    step(input);
    const before = process.cpuUsage();
    step(input);
    const after = process.cpuUsage(before);
    if (after.user + after.system > worstMicros) {
      worst = family;
      worstMicros = after.user + after.system;
    }
  }
  return worst;
}

function codePoint(c: string): string {
  return `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}
