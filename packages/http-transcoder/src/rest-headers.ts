import type { NodeRequest, NodeResponse } from "./node-types.js";

/** The header of a request's id, in error responses and read from the request (lower case, as Node keeps them). @private */
export const requestIdHeader = "x-request-id";

// Request headers that describe the HTTP/JSON exchange, not the call: the transcoder reads the body
// itself (RFC 9110, section 7.6.1 for the hop-by-hop ones).
const requestHeadersNotForwarded = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "content-length",
  "content-type",
  "content-encoding",
  "accept-encoding",
]);

// Headers a call answers with that describe the encoding of its answer, not the call's metadata.
const responseHeadersNotForwarded = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "accept-encoding",
  "vary",
]);

/**
 * Whether a call sees a request header (by its lower-case name). HTTP/2 pseudo-headers (`:path`)
 * are no headers; Connect and gRPC protocol headers (timeouts, compression) are not the REST
 * client's to set.
 *
 * @private
 */
export function isForwardedRequestHeader(name: string): boolean {
  return (
    name.charCodeAt(0) !== 58 /* ":" */ &&
    !requestHeadersNotForwarded.has(name) &&
    !name.startsWith("connect-") &&
    !name.startsWith("grpc-")
  );
}

/** The request headers a call sees, copied into a `Headers`. @private */
export function forwardedRequestHeaders(req: NodeRequest): Headers {
  const header = new Headers();
  const incoming = req.headers;
  for (const name in incoming) {
    if (!isForwardedRequestHeader(name)) continue;
    const value = incoming[name];
    if (typeof value === "string") {
      header.append(name, value);
    } else if (Array.isArray(value)) {
      for (const item of value) header.append(name, item);
    }
  }
  return header;
}

/** Whether a header a call answered with is the call's metadata, to send to the REST client. @private */
export function isForwardedResponseHeader(name: string): boolean {
  return !responseHeadersNotForwarded.has(name) && !name.startsWith("connect-") && !name.startsWith("grpc-");
}

/**
 * The name a call's header or trailer goes out under. Connect sends a unary call's trailers as
 * `trailer-` headers, and HTTP/JSON has no trailers: they become headers too.
 *
 * @private
 */
export function responseHeaderName(name: string): string {
  return name.startsWith("trailer-") ? name.slice(8) : name;
}

/** Sets the headers (or trailers, or error metadata) a call answered with on the REST response. @private */
export function setResponseHeaders(res: NodeResponse, headers: Headers | undefined): void {
  headers?.forEach((value, name) => {
    if (isForwardedResponseHeader(name)) res.setHeader(responseHeaderName(name), value);
  });
}
