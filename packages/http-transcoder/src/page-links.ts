import { parseFormUrlencoded } from "./form-urlencoded.js";
import type { NodeResponse } from "./node-types.js";
import { splitRequestTarget } from "./request-target.js";

/**
 * Adds the next page's address as `Link: <...>; rel="next"` (RFC 8288): the request's own path and
 * query, with the page token (under either name) replaced.
 *
 * @private
 */
export function appendNextPageLink(res: NodeResponse, url: string | undefined, token: string): void {
  const { path, query } = splitRequestTarget(url);
  // Built from pairs, not from the query string: URLSearchParams splits one in quadratic time
  // (see parseFormUrlencoded).
  const params = new URLSearchParams(parseFormUrlencoded(query));
  params.delete("page_token");
  params.set("pageToken", token);
  res.appendHeader("link", `<${path}?${params.toString()}>; rel="next"`);
}
