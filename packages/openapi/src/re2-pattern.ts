/**
 * RE2 patterns (protovalidate's `string.pattern`) as ECMA-262 patterns (JSON Schema's `pattern`,
 * read with Unicode semantics, the `u` flag, as JSON Schema 2020-12 validators do). Written by
 * hand: no library translates between the two, and @bufbuild/re2 does not export its parser.
 *
 * What reads the same is copied; what differs is rewritten to match the same strings: `\x{200B}`
 * is `\u200B` (`\u{1F600}` above the BMP), octal `\101` is `\x41`; `.` is `[^\n]` (RE2's dot
 * matches `\r`, U+2028 and U+2029); `\s` is `[\t\n\f\r ]` (RE2's is ASCII); `\A`/`\z` are
 * `^`/`$`; `\pL`, `\p{Greek}` are `\p{L}`, `\p{Script=Greek}`; `[[:alpha:]]` is `[A-Za-z]`;
 * `\Q...\E` is its text escaped; `(?P<name>` is a plain group; escaped punctuation ECMA-262 does
 * not let you escape (`\#`) is the character itself; a literal `{`, `}` or `]` is escaped.
 *
 * A pattern using what ECMA-262 has no equivalent for is not translated, with the reason: inline
 * flags (`(?i)`, `(?s)`), `\C`, `\S`, `\b` or a negated POSIX class inside brackets.
 */

import {
  type ClassAtom,
  codePointAtom,
  GENERAL_CATEGORIES,
  literal,
  POSIX_CLASSES,
  SYNTAX_CHARACTERS,
} from "./re2-classes.js";

/** A translated pattern, or why there is none. */
export type PatternTranslation = { readonly pattern: string } | { readonly untranslatable: string };

/** Translates an RE2 pattern into an ECMA-262 one that matches the same strings. @private */
export function translateRe2Pattern(re2: string): PatternTranslation {
  try {
    return { pattern: new Translator(re2).pattern() };
  } catch (error) {
    if (error instanceof Untranslatable) return { untranslatable: error.message };
    throw error;
  }
}

class Untranslatable extends Error {}

const OCTAL = /^[0-7]$/;
const HEX = /^[0-9A-Fa-f]$/;
const REPEAT = /^\{(\d+)(,(\d*))?\}/;

/** RE2's ASCII whitespace (`\s`). */
const RE2_SPACE = "\\t\\n\\f\\r ";

class Translator {
  private readonly chars: string[];
  private i = 0;

  constructor(re2: string) {
    this.chars = Array.from(re2);
  }

  pattern(): string {
    let out = "";
    while (this.i < this.chars.length) {
      const c = this.chars[this.i] as string;
      switch (c) {
        case "\\":
          out += this.escape(false).text;
          break;
        case "[":
          out += this.bracket();
          break;
        case ".":
          out += "[^\\n]";
          this.i++;
          break;
        case "(":
          out += this.groupOpening();
          break;
        case "{": {
          const repeat = REPEAT.exec(this.chars.slice(this.i, this.i + 24).join(""));
          if (repeat === null) {
            out += "\\{";
            this.i++;
          } else {
            out += repeat[0];
            this.i += repeat[0].length;
          }
          break;
        }
        case "}":
        case "]":
          out += `\\${c}`;
          this.i++;
          break;
        default:
          // Operators (`*+?|)^$`) read the same; other characters are themselves.
          out += "*+?|)^$".includes(c) ? c : literal(c, false);
          this.i++;
      }
    }
    return out;
  }

  /** `(`, `(?:`, or a named group (a plain group: names do not change what matches). */
  private groupOpening(): string {
    const rest = this.chars.slice(this.i, this.i + 3).join("");
    if (!rest.startsWith("(?")) {
      this.i++;
      return "(";
    }
    if (rest === "(?:") {
      this.i += 3;
      return "(?:";
    }
    if (rest === "(?P" || rest === "(?<") {
      const close = this.chars.indexOf(">", this.i);
      if (close < 0) throw new Untranslatable("an unterminated group name");
      this.i = close + 1;
      return "(";
    }
    throw new Untranslatable("inline flags (`(?i)`, `(?s)`...), which ECMA-262 patterns cannot hold");
  }

  /** An escape sequence at `\`, outside or inside a bracket expression. */
  private escape(inClass: boolean): ClassAtom {
    const c = this.chars[this.i + 1];
    if (c === undefined) throw new Untranslatable("a trailing backslash");
    this.i += 2;
    if (OCTAL.test(c)) {
      // RE2: `\0` or `\1`-`\7` followed by a digit start an octal code of up to three digits;
      // a lone `\1`-`\7` would be a backreference, which RE2 refuses.
      if (c !== "0" && !OCTAL.test(this.chars[this.i] ?? "")) {
        throw new Untranslatable("a backreference");
      }
      let digits = c;
      while (digits.length < 3 && OCTAL.test(this.chars[this.i] ?? "")) digits += this.chars[this.i++];
      return codePointAtom(Number.parseInt(digits, 8));
    }
    switch (c) {
      case "x":
        return codePointAtom(this.hexEscape());
      case "a":
        return codePointAtom(7);
      case "f":
        return codePointAtom(0x0c);
      case "n":
        return codePointAtom(0x0a);
      case "r":
        return codePointAtom(0x0d);
      case "t":
        return codePointAtom(0x09);
      case "v":
        return codePointAtom(0x0b);
      case "d":
      case "D":
      case "w":
      case "W":
        // ASCII in both dialects (ECMA-262's `\w` differs only under the `i` flag).
        return { text: `\\${c}` };
      case "s":
        return { text: inClass ? RE2_SPACE : `[${RE2_SPACE}]` };
      case "S":
        if (inClass) throw new Untranslatable("`\\S` inside a bracket expression");
        return { text: `[^${RE2_SPACE}]` };
      case "b":
      case "B":
        if (inClass) throw new Untranslatable("`\\b` inside a bracket expression");
        return { text: `\\${c}` };
      case "A":
      case "z":
        if (inClass) throw new Untranslatable(`\`\\${c}\` inside a bracket expression`);
        return { text: c === "A" ? "^" : "$" };
      case "p":
      case "P":
        return { text: this.unicodeClass(c === "P", inClass) };
      case "Q":
        if (inClass) throw new Untranslatable("`\\Q` inside a bracket expression");
        return { text: this.quoted() };
      case "C":
        throw new Untranslatable("`\\C` (any byte), which ECMA-262 has no equivalent of");
      default: {
        // RE2 lets any ASCII punctuation be escaped; ECMA-262 (with `u`) only its syntax characters.
        if (/^[!-/:-@[-`{-~]$/.test(c))
          return { text: literal(c, inClass), codePoint: c.codePointAt(0) as number };
        throw new Untranslatable(`the escape \`\\${c}\``);
      }
    }
  }

  /** The code point of `\xHH` or `\x{H...}`, after the `x`. */
  private hexEscape(): number {
    let digits = "";
    if (this.chars[this.i] === "{") {
      const close = this.chars.indexOf("}", this.i);
      if (close < 0) throw new Untranslatable("an unterminated `\\x{`");
      digits = this.chars.slice(this.i + 1, close).join("");
      this.i = close + 1;
    } else {
      digits = this.chars.slice(this.i, this.i + 2).join("");
      this.i += 2;
    }
    if (digits === "" || ![...digits].every((d) => HEX.test(d))) {
      throw new Untranslatable(`the escape \`\\x${digits}\``);
    }
    const codePoint = Number.parseInt(digits, 16);
    if (codePoint > 0x10ffff) throw new Untranslatable(`the code point \\x{${digits}}`);
    return codePoint;
  }

  /** `\pL`, `\p{Greek}`, `\p{^Greek}`, after the `p`. */
  private unicodeClass(negated: boolean, inClass: boolean): string {
    let name: string;
    if (this.chars[this.i] === "{") {
      const close = this.chars.indexOf("}", this.i);
      if (close < 0) throw new Untranslatable("an unterminated `\\p{`");
      name = this.chars.slice(this.i + 1, close).join("");
      this.i = close + 1;
    } else {
      name = this.chars[this.i++] ?? "";
    }
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    if (name === "Any") {
      if (inClass) {
        if (negated) throw new Untranslatable("`\\P{Any}` inside a bracket expression");
        return "\\u{0}-\\u{10FFFF}";
      }
      return negated ? "[^\\s\\S]" : "[\\s\\S]";
    }
    const property = GENERAL_CATEGORIES.has(name) ? name : `Script=${name}`;
    return `\\${negated ? "P" : "p"}{${property}}`;
  }

  /** `\Q...\E`, after the `Q`: its text, escaped. */
  private quoted(): string {
    let out = "";
    while (this.i < this.chars.length) {
      if (this.chars[this.i] === "\\" && this.chars[this.i + 1] === "E") {
        this.i += 2;
        break;
      }
      const c = this.chars[this.i++] as string;
      out += SYNTAX_CHARACTERS.has(c) ? `\\${c}` : literal(c, false);
    }
    return out;
  }

  /** A bracket expression at `[`. */
  private bracket(): string {
    this.i++;
    let out = "[";
    if (this.chars[this.i] === "^") {
      out += "^";
      this.i++;
    }
    let first = true;
    for (;;) {
      const c = this.chars[this.i];
      if (c === undefined) throw new Untranslatable("an unterminated bracket expression");
      // A `]` first is a literal in RE2.
      if (c === "]" && !first) {
        this.i++;
        return `${out}]`;
      }
      first = false;
      const low = this.classAtom();
      if (
        this.chars[this.i] === "-" &&
        this.chars[this.i + 1] !== "]" &&
        this.chars[this.i + 1] !== undefined
      ) {
        this.i++;
        const high = this.classAtom();
        if (low.codePoint === undefined || high.codePoint === undefined) {
          throw new Untranslatable("a range whose end is a class");
        }
        out += `${low.text}-${high.text}`;
      } else {
        out += low.text;
      }
    }
  }

  /** One element of a bracket expression. */
  private classAtom(): ClassAtom {
    const c = this.chars[this.i] as string;
    if (c === "\\") return this.escape(true);
    if (c === "[" && this.chars[this.i + 1] === ":") {
      const close = this.chars.indexOf("]", this.i + 2);
      const text = close < 0 ? "" : this.chars.slice(this.i, close + 1).join("");
      const posix = /^\[:(\^?)([a-z]+):\]$/.exec(text);
      if (posix !== null) {
        const ranges = POSIX_CLASSES[posix[2] as string];
        if (ranges === undefined) throw new Untranslatable(`the POSIX class ${text}`);
        if (posix[1] === "^")
          throw new Untranslatable(`the negated POSIX class ${text} inside a bracket expression`);
        this.i = close + 1;
        return { text: ranges };
      }
    }
    this.i++;
    return { text: literal(c, true), codePoint: c.codePointAt(0) as number };
  }
}
