import type { NodeRequest, NodeResponse } from "@folio/http-transcoder";
import { entityTag, matchesIfNoneMatch } from "@folio/http-transcoder";
import { EMPTY, type NodeHeaders, type UnaryAnswer } from "./write-unary-answer.js";

/** What a successful answer to a Connect GET tells caches, as the REST transcoder's GET answers do. */
export interface GetCaching {
  /** The `Cache-Control` of a successful answer (and of its 304), or undefined for none. Default none. */
  readonly cacheControl?: ((req: NodeRequest) => string | undefined) | undefined;
  /** Send a strong `ETag` and answer a matching `If-None-Match` with `304 Not Modified`. Default true. */
  readonly etags?: boolean | undefined;
}

/**
 * A Connect GET's answer with what caches need: on a success, `Accept-Encoding` added to `Vary`
 * (the body's coding follows it), the `Cache-Control` of `caching`, and a strong `ETag` of the message (and
 * its coding); `304 Not Modified`, without content, when `If-None-Match` names that tag (RFC 9110,
 * sections 8.8.3 and 13.1.2). A failure is answered as it is.
 */
export function cachedGetAnswer(
  req: NodeRequest,
  res: NodeResponse,
  answer: UnaryAnswer,
  message: Uint8Array,
  caching: GetCaching,
): UnaryAnswer {
  if (answer.status !== 200) return answer;
  const header: NodeHeaders = { ...answer.header, vary: withVary(res.getHeader("vary"), "accept-encoding") };
  const cacheControl = caching.cacheControl?.(req);
  if (cacheControl !== undefined) header["cache-control"] = cacheControl;
  if (caching.etags === false) return { ...answer, header };
  const coding = header["content-encoding"];
  const tag = entityTag(message, typeof coding === "string" ? coding : undefined);
  header.etag = tag;
  if (!matchesIfNoneMatch(req.headers["if-none-match"], tag)) return { ...answer, header };
  // The headers a 200 would have had, but those of its content (RFC 9110, section 15.4.5).
  const unchanged = Object.entries(header).filter(([name]) => !CONTENT_HEADERS.has(name));
  return { status: 304, header: Object.fromEntries(unchanged), body: EMPTY };
}

/** Headers that describe an answer's content, which a 304 has none of. */
const CONTENT_HEADERS = new Set(["content-type", "content-length", "content-encoding"]);

/**
 * `Vary` with `name` added once to what the response has already (CORS's `Origin`): the answer's
 * headers replace those set on the response before it.
 */
function withVary(current: number | string | string[] | undefined, name: string): string {
  const value = Array.isArray(current) ? current.join(", ") : current === undefined ? "" : String(current);
  const names = value.split(",").map((item) => item.trim().toLowerCase());
  if (names.includes(name) || names.includes("*")) return value;
  return value === "" ? name : `${value}, ${name}`;
}
