import type { IncomingHttpHeaders } from "node:http";

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Rewrites a request target to the origin form the routes are matched against:
 *
 * - the absolute form (`POST http://host/api/v1/folders`, RFC 9112, section 3.2.2, which a server
 *   must accept) becomes its path and query, and its authority replaces `Host` as that section
 *   requires;
 * - a run of leading slashes (`//api/v1/folders`) becomes one: parsed as a URL, `//api` would
 *   name a host "api", not a path. Slashes inside the path are left alone, since an empty
 *   segment there is meaningful (a path parameter left empty must not match another route).
 */
export function normalizeRequestTarget(req: {
  url?: string | undefined;
  headers: IncomingHttpHeaders;
}): void {
  const url = req.url;
  if (url === undefined) return;
  if (ABSOLUTE_FORM.test(url)) {
    try {
      const parsed = new URL(url);
      req.url = `${parsed.pathname}${parsed.search}`;
      if (parsed.host !== "") req.headers.host = parsed.host;
    } catch {
      // Not a URL after all: left for the router to refuse.
    }
  }
  if (req.url?.startsWith("//")) req.url = req.url.replace(/^\/+/, "/");
}
