import type { IncomingHttpHeaders } from "node:http";
import { cors } from "@connectrpc/connect";

/** The request fields CORS reads: both `http` and `http2` requests have them. */
export interface CorsRequest {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** The response methods CORS calls: both `http` and `http2` responses have them. */
export interface CorsResponse {
  statusCode: number;
  getHeader(name: string): number | string | string[] | undefined;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  end(): unknown;
}

/**
 * Adds the CORS headers for a request from an allowed origin and answers its preflight. Returns
 * true when it answered the request (a preflight), false when the request goes on to the routes.
 */
export type CorsHandler = (req: CorsRequest, res: CorsResponse) => boolean;

/** Methods of every protocol: Connect and gRPC-Web use POST (and GET), REST's routes GET and POST. */
const ALLOWED_METHODS = [...new Set([...cors.allowedMethods, "GET", "POST"])];

/** Request headers of Connect and gRPC-Web, and REST's own. */
const ALLOWED_HEADERS = [
  ...new Set(
    [
      ...cors.allowedHeaders,
      "Authorization",
      "Content-Type",
      "Idempotency-Key",
      "X-Request-Id",
      "If-None-Match",
    ].map((h) => h.toLowerCase()),
  ),
];

/** Response headers a page may read: gRPC-Web's status, the request id, paging, limits, challenges. */
const EXPOSED_HEADERS = [
  ...new Set(
    [
      ...cors.exposedHeaders,
      "X-Request-Id",
      "ETag",
      "Link",
      "Retry-After",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
      "WWW-Authenticate",
    ].map((h) => h.toLowerCase()),
  ),
];

/** How long a browser may reuse a preflight's answer: Chromium caps it at 2 hours. */
const MAX_AGE_SECONDS = 7200;

/**
 * CORS for browser pages on the allowed origins (exact matches of the `Origin` header), for every
 * path: REST, Connect and gRPC-Web alike. The headers are set before the routes run, so error
 * responses (401, 429, ...) carry them too and a page can read their body. No credentials:
 * callers send bearer tokens, never cookies. With no allowed origins, nothing is added.
 */
export function createCors(allowedOrigins: readonly string[]): CorsHandler {
  const allowed = new Set(allowedOrigins);
  return (req, res) => {
    if (allowed.size === 0) return false;
    // The answer differs by origin, so caches must key on it, for refused origins too.
    appendVary(res, "Origin");
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return false;
    res.setHeader("access-control-allow-origin", origin);
    const isPreflight =
      req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
    if (!isPreflight) {
      res.setHeader("access-control-expose-headers", EXPOSED_HEADERS.join(", "));
      return false;
    }
    res.setHeader("access-control-allow-methods", ALLOWED_METHODS.join(", "));
    res.setHeader("access-control-allow-headers", ALLOWED_HEADERS.join(", "));
    res.setHeader("access-control-max-age", String(MAX_AGE_SECONDS));
    res.statusCode = 204;
    res.end();
    return true;
  };
}

/** Adds a field name to the response's `Vary` header, keeping what is there. */
export function appendVary(res: Pick<CorsResponse, "getHeader" | "setHeader">, field: string): void {
  const current = res.getHeader("vary");
  const fields = (Array.isArray(current) ? current.join(",") : String(current ?? ""))
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f !== "");
  if (fields.includes("*") || fields.some((f) => f.toLowerCase() === field.toLowerCase())) return;
  res.setHeader("vary", [...fields, field].join(", "));
}
