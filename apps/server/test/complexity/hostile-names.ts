// Folder names built to make the name rules slow, each of a given length in UTF-16 code units: the
// inputs of the complexity tests of the service's rules and of the whole request validation.

/** A kind of name, and how to build one of about `size` code units. */
export interface NameFamily {
  readonly label: string;
  readonly build: (size: number) => string;
}

/** Every character JavaScript's `trim` removes (the service trims the name before counting it). */
const WHITE_SPACE =
  "\t\n\u000B\f\r \u00A0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";

/**
 * `unit` repeated to about `size` code units, in whole copies: a copy cut short (half an escape, half
 * a surrogate pair) would make the input at one size differ in kind from the input at another.
 */
export function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

/** The names each rule has to read in full, or that make NFC, trimming or a regular expression work hardest. */
export const NAME_FAMILIES: readonly NameFamily[] = [
  {
    // NFC puts each U+0316 (class 220) before every U+0301 (class 230): quadratic in the run.
    label: "one letter, then unordered combining marks",
    build: (size) => `a${"\u0301".repeat(size >> 1)}${"\u0316".repeat(size >> 1)}`,
  },
  {
    // Within the Stream-Safe bound (30 marks in a row), so the run rule lets every run through.
    label: "letters each followed by 30 unordered combining marks",
    build: (size) => repeatTo(`a${"\u0301".repeat(15)}${"\u0316".repeat(15)}`, size),
  },
  { label: "plain letters", build: (size) => repeatTo("a", size) },
  {
    label: "a letter between long white space",
    build: (size) => `${repeatTo(WHITE_SPACE, size >> 1)}a${repeatTo(WHITE_SPACE, size >> 1)}`,
  },
  { label: "white space only", build: (size) => repeatTo(WHITE_SPACE, size) },
  {
    // White space that is a control character (tab) inside the name, everywhere.
    label: "letters and tabs",
    build: (size) => repeatTo("a\t", size),
  },
  {
    // The invisible-character rule must read to the end to find the one there.
    label: "letters, then one zero-width space at the end",
    build: (size) => `${repeatTo("a", size - 1)}\u200B`,
  },
  { label: "invisible characters only", build: (size) => repeatTo("\u200B\u200E\u2060\uFEFF\uFDD0", size) },
  {
    // Zero-width joiners the rule allows (inside emoji sequences): each one's look-behind runs.
    label: "emoji ZWJ sequences",
    build: (size) => repeatTo("\u{1F469}\u{1F3FD}\u200D\u{1F4BB}\u2764\uFE0F\u200D\u{1F525}", size),
  },
  { label: "zero-width joiners only", build: (size) => repeatTo("\u200D", size) },
  { label: "astral characters (surrogate pairs)", build: (size) => repeatTo("\u{1F600}", size) },
  { label: "lone high surrogates", build: (size) => repeatTo("\uD83D", size) },
  { label: "lone low surrogates", build: (size) => repeatTo("\uDE00", size) },
  { label: "dots", build: (size) => repeatTo(".", size) },
  {
    label: "white space around two dots",
    build: (size) => `${repeatTo(" ", size >> 1)}..${repeatTo(" ", size >> 1)}`,
  },
];
