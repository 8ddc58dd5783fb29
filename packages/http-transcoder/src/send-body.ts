import { type Compression, type ContentCoding, negotiateContentCoding } from "./content-coding.js";
import { entityTag, matchesIfNoneMatch } from "./entity-tag.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";

/** How a transcoder sends the bodies of successful answers. @private */
export interface BodySending {
  readonly compression: Compression | undefined;
  /** Whether GET answers carry an `ETag` and honour `If-None-Match`. */
  readonly etags: boolean;
  readonly cacheControl: ((req: NodeRequest) => string | undefined) | undefined;
}

/**
 * Sends the body of a successful answer whose status and headers are set: compressed in the
 * coding the client prefers of those offered (above the threshold, with `Vary: Accept-Encoding`,
 * RFC 9110, section 12.5.3), and, for a GET or HEAD answered 200, with a strong `ETag` of the
 * representation and `304 Not Modified` when `If-None-Match` names it (RFC 9110, sections 8.8.3
 * and 13.1.2), before anything is compressed.
 *
 * @private
 */
export async function sendBody(
  req: NodeRequest,
  res: NodeResponse,
  body: Uint8Array,
  sending: BodySending,
): Promise<void> {
  const { compression } = sending;
  let coding: string | undefined;
  if (compression !== undefined) {
    appendVary(res, "accept-encoding");
    if (body.byteLength >= compression.threshold) {
      coding = negotiateContentCoding(req.headers["accept-encoding"], compression.codings);
    }
  }
  const method = req.method;
  if ((method === "GET" || method === "HEAD") && res.statusCode === 200) {
    const cacheControl = sending.cacheControl?.(req);
    if (cacheControl !== undefined) res.setHeader("cache-control", cacheControl);
    if (sending.etags) {
      // A strong tag names one representation: each coding of the body gets its own.
      const tag = entityTag(body, coding);
      res.setHeader("etag", tag);
      if (matchesIfNoneMatch(req.headers["if-none-match"], tag)) {
        res.statusCode = 304;
        res.removeHeader("content-type");
        res.end();
        return;
      }
    }
  }
  let sent = body;
  if (coding !== undefined && compression !== undefined) {
    sent = await compression.compress(coding as ContentCoding, body);
    res.setHeader("content-encoding", coding);
  }
  // Set here so that a HEAD answer says the length its GET would have.
  res.setHeader("content-length", sent.byteLength);
  if (method === "HEAD") res.end();
  else res.end(sent);
}

/** Whether an `If-None-Match` names the tag (RFC 9110, section 13.1.2); one definition for REST and Connect GET. */
export { matchesIfNoneMatch };

/** Adds a field name to the response's `Vary`, once. @private */
export function appendVary(res: NodeResponse, name: string): void {
  const current = res.getHeader("vary");
  const value = Array.isArray(current) ? current.join(", ") : current === undefined ? "" : String(current);
  const names = value.split(",").map((item) => item.trim().toLowerCase());
  if (names.includes(name) || names.includes("*")) return;
  res.setHeader("vary", value === "" ? name : `${value}, ${name}`);
}
