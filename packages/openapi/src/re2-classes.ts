/**
 * RE2's named character classes, and how characters are written in ECMA-262 patterns: for the
 * translation of protovalidate's RE2 patterns (re2-pattern.ts).
 */

/** POSIX classes of RE2 (ASCII only), as ECMA-262 class ranges. @private */
export const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`\\{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** Unicode general categories RE2 knows: ECMA-262 takes them as they are (`\p{Lu}`). @private */
export const GENERAL_CATEGORIES = new Set([
  "C",
  "Cc",
  "Cf",
  "Co",
  "Cs",
  "L",
  "Ll",
  "Lm",
  "Lo",
  "Lt",
  "Lu",
  "M",
  "Mc",
  "Me",
  "Mn",
  "N",
  "Nd",
  "Nl",
  "No",
  "P",
  "Pc",
  "Pd",
  "Pe",
  "Pf",
  "Pi",
  "Po",
  "Ps",
  "S",
  "Sc",
  "Sk",
  "Sm",
  "So",
  "Z",
  "Zl",
  "Zp",
  "Zs",
]);

/** ECMA-262's syntax characters: the only punctuation a `\` may escape under the `u` flag. @private */
export const SYNTAX_CHARACTERS = new Set("^$\\.*+?()[]{}|/");
/** Characters that must be escaped inside an ECMA-262 class (`-` anywhere, `^` too, for safety). */
const CLASS_SPECIAL = new Set("\\]^-[");

/** One element of a bracket expression: its ECMA-262 text, and its code point if it is one. */
export interface ClassAtom {
  readonly text: string;
  readonly codePoint?: number;
}

/** A code point as a class element. @private */
export function codePointAtom(codePoint: number): ClassAtom {
  return { text: codePointEscape(codePoint), codePoint };
}

/** A code point as an escape that reads the same inside and outside a bracket expression. */
export function codePointEscape(codePoint: number): string {
  const hex = codePoint.toString(16).toUpperCase();
  if (codePoint <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  if (codePoint <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\u{${hex}}`;
}

/** A character that stands for itself, escaped where ECMA-262 would read it otherwise. */
export function literal(c: string, inClass: boolean): string {
  const codePoint = c.codePointAt(0) as number;
  // Control characters and invisible ones, escaped so that the document shows them.
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0xa0)) return codePointEscape(codePoint);
  if (inClass) return CLASS_SPECIAL.has(c) ? `\\${c}` : c;
  return SYNTAX_CHARACTERS.has(c) ? `\\${c}` : c;
}
