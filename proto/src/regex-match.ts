import { RE2JS } from "@bufbuild/re2";

/**
 * The regular expressions of Folio's rules, matched as RE2 would match them but in the platform's
 * own engine where that is as safe: a single bracket expression, searched for (`[/\\]`) or
 * spanning the whole value (`^[\x21-\x7e]+$`). A backtracking engine matches those in one pass,
 * and tens of times faster than the pure-JavaScript RE2 engine protovalidate uses by default,
 * whose cost on a value near the body limit (1 MiB) is a fifth of a second of CPU a rule. Every
 * other pattern goes to RE2, which guarantees linear time whatever the pattern.
 *
 * Written here because neither library offers it: protovalidate takes any matcher
 * (`regexMatch`), and leaves choosing one that is safe to its user.
 */
export function linearRegexMatch(pattern: string, against: string): boolean {
  let matcher = cache.get(pattern);
  if (matcher === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    matcher = compile(pattern);
    cache.set(pattern, matcher);
  }
  return matcher(against);
}

/** Patterns come from the rules, a fixed set; the bound only keeps a pathological schema in check. */
const CACHE_LIMIT = 1024;
const cache = new Map<string, (value: string) => boolean>();

/**
 * One bracket expression, searched for or anchored at both ends with `*` or `+`: no alternation,
 * no group, nothing a backtracking engine could try twice. Inside the brackets: literals, `\`
 * escapes and ranges, but no nested bracket, class (`\d`, `\p{...}`) or POSIX class, where the two
 * dialects differ.
 */
const SINGLE_BRACKET =
  /^(\^?)\[(\^?)((?:[^\\\][]|\\(?:x\{[0-9A-Fa-f]{1,6}\}|x[0-9A-Fa-f]{2}|[tnrfv\\/.\-^\]]))+)\]([*+]?)(\$?)$/;

function compile(pattern: string): (value: string) => boolean {
  const shape = SINGLE_BRACKET.exec(pattern);
  const [, start = "", negated = "", body = "", repeat = "", end = ""] = shape ?? [];
  // Searched for (no anchors, no repetition), or spanning the value (both anchors and a repetition).
  const searched = start === "" && repeat === "" && end === "";
  const spanning = start === "^" && repeat !== "" && end === "$";
  if (shape === null || !(searched || spanning)) {
    const re2 = RE2JS.compile(pattern);
    return (value) => re2.test(value);
  }
  // RE2's \x{HHHH} is JavaScript's \u{HHHH} (with the u flag: both match code points).
  const native = new RegExp(
    `${start}[${negated}${body.replace(/\\x\{([0-9A-Fa-f]+)\}/g, "\\u{$1}")}]${repeat}${end}`,
    "u",
  );
  return (value) => native.test(value);
}
