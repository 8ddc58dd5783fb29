import { unescape as querystringUnescape } from "node:querystring";
import { toUSVString } from "node:util";

/** A complete percent escape: `%` and two hexadecimal digits. */
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * The name-value pairs of a query string, in order, read as application/x-www-form-urlencoded
 * exactly as Node's `URLSearchParams` reads it: one leading `?` skipped, pairs split at `&` and
 * empty ones skipped, the name ending at the pair's first `=` (a pair without one has the value
 * ""), `+` a space, and percent escapes decoded as UTF-8; a `%` without two hexadecimal digits
 * after it stays as it is, and escaped bytes that are not UTF-8 become U+FFFD.
 *
 * Split by hand, not by `URLSearchParams`: Node's looks for each pair's `=` from the pair to the
 * end of the query, so pairs without one (`a&a&a...`) cost time quadratic in their number.
 *
 * @private
 */
export function parseFormUrlencoded(query: string): [name: string, value: string][] {
  // As URLSearchParams: a lone surrogate is U+FFFD before anything is split or decoded.
  const text = toUSVString(query);
  const pairs: [string, string][] = [];
  let start = text.startsWith("?") ? 1 : 0;
  // The first "=" at or after `start`, text.length for none: each search starts past the last
  // one found, so no character is searched twice.
  let equals = -1;
  while (start < text.length) {
    let end = text.indexOf("&", start);
    if (end < 0) end = text.length;
    if (end > start) {
      if (equals < start) {
        equals = text.indexOf("=", start);
        if (equals < 0) equals = text.length;
      }
      pairs.push(
        equals < end
          ? [decodeComponent(text.slice(start, equals)), decodeComponent(text.slice(equals + 1, end))]
          : [decodeComponent(text.slice(start, end)), ""],
      );
    }
    start = end + 1;
  }
  return pairs;
}

/**
 * A name or a value, decoded as URLSearchParams decodes it: `+` a space, then, if there is a
 * complete percent escape, decodeURIComponent, or where that throws (an escape that is not UTF-8,
 * a `%` without digits beside a complete one) `querystring.unescape`'s byte-wise decoding, which
 * URLSearchParams falls back to. That one takes each character as its lowest byte, so a non-ASCII
 * character in such a name or value does not survive either: as with URLSearchParams.
 */
function decodeComponent(component: string): string {
  const spaced = component.includes("+") ? component.replaceAll("+", " ") : component;
  return PERCENT_ESCAPE.test(spaced) ? querystringUnescape(spaced) : spaced;
}
