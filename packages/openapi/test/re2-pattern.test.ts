/**
 * RE2 patterns (protovalidate's `string.pattern`) as JSON Schema's ECMA-262 patterns: each
 * translation matches exactly the strings RE2 matches, checked against RE2 itself (@bufbuild/re2,
 * the engine protovalidate-es runs) on generated strings.
 */
import { RE2JS } from "@bufbuild/re2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { translateRe2Pattern } from "../src/re2-pattern.js";

/** Patterns covering what reads the same and what the translation rewrites. */
const PATTERNS = [
  // Folio's own: colour, visible ASCII, page token, no NUL.
  "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$",
  "^[\\x21-\\x7E]+$",
  "^[0-9A-Za-z._-]*$",
  "^[^\\x00]*$",
  // `\x{...}` escapes, as protovalidate rules write them.
  "[^\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]",
  "^[\\x{1F600}-\\x{1F64F}]+$",
  "\\x{200B}",
  // Dot, spaces, anchors, classes, properties, quoting, escaped punctuation, braces.
  "^a.c$",
  "^\\s+$",
  "\\S",
  "[\\s\\d]x",
  "^[[:alpha:]]+\\d$",
  "[^[:digit:]x]",
  "^\\pL+$",
  "\\p{Greek}",
  "\\PN",
  "\\p{^Lu}",
  "[\\p{Lu}\\d]",
  "\\Qa.b\\E",
  "\\#\\!\\-\\/",
  "^a{2,3}$",
  "x{",
  "a}b",
  "]",
  "[]a]",
  "\\101\\0",
  "\\Ax\\z",
  "(?P<word>\\w+)-(?:\\d)",
  "\\bword\\b",
  "a|b|\\.",
  "[a\\-z]",
  "[\\\\/]",
  "\\a\\f\\v",
  "^\\p{Any}$",
];

/** Characters the patterns above care about, and some they treat specially. */
const CHARACTERS = [
  ..."abcxwordABCFGfz019#.-_/\\{}[] !",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "\x07",
  "\x00",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\u200b",
  "\u3000",
  "α",
  "Ω",
  "٣",
  "😀",
  "🙏",
];

/** Strings where the dialects differ unless translated, tried on every pattern besides random ones. */
const SAMPLES = [
  "a\u2028c",
  "a\rc",
  "a\nc",
  "a\u2029c",
  " \v",
  "\u3000",
  "#fff",
  "ww",
  "word",
  "\x07\f\v",
  "😀",
];

const strings = fc.oneof(
  fc.string({ unit: fc.constantFrom(...CHARACTERS), maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
);

describe("an RE2 pattern translated to ECMA-262", () => {
  for (const re2 of PATTERNS) {
    it(`matches what RE2 matches: ${re2}`, () => {
      const translated = translateRe2Pattern(re2);
      if (!("pattern" in translated)) throw new Error(`not translated: ${translated.untranslatable}`);
      const ecma = new RegExp(translated.pattern, "u");
      const engine = RE2JS.compile(re2);
      fc.assert(
        fc.property(strings, (text) => ecma.test(text) === engine.test(text)),
        { numRuns: 400, examples: SAMPLES.map((sample) => [sample]) },
      );
    });
  }

  it("keeps what reads the same as it is, and rewrites `\\x{...}`, `.` and `\\s`", () => {
    expect(translateRe2Pattern("^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")).toEqual({
      pattern: "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$",
    });
    expect(translateRe2Pattern("[\\x{2000}-\\x{200A}\\x{1F600}]")).toEqual({
      pattern: "[\\u2000-\\u200A\\u{1F600}]",
    });
    expect(translateRe2Pattern("a.\\s")).toEqual({ pattern: "a[^\\n][\\t\\n\\f\\r ]" });
    expect(translateRe2Pattern("\\p{Greek}\\pL")).toEqual({ pattern: "\\p{Script=Greek}\\p{L}" });
  });

  it("gives up, with the reason, on what ECMA-262 cannot say", () => {
    expect(translateRe2Pattern("(?i)abc")).toEqual({
      untranslatable: "inline flags (`(?i)`, `(?s)`...), which ECMA-262 patterns cannot hold",
    });
    expect(translateRe2Pattern("a\\Cb")).toHaveProperty("untranslatable");
    expect(translateRe2Pattern("[\\S]")).toHaveProperty("untranslatable");
    expect(translateRe2Pattern("[[:^alpha:]]")).toHaveProperty("untranslatable");
  });
});
