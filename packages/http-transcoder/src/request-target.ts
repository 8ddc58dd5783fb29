/** The path and the query string of a request target (RFC 9110, section 7.1). */
export interface RequestTarget {
  /** The path, as sent (not decoded). */
  readonly path: string;
  /** The query string without its `?`; `""` for none. */
  readonly query: string;
}

/** Splits a request's target (`req.url`, `/` when Node has none) into its path and query string. */
export function splitRequestTarget(url: string | undefined): RequestTarget {
  const target = url ?? "/";
  const q = target.indexOf("?");
  return q < 0 ? { path: target, query: "" } : { path: target.slice(0, q), query: target.slice(q + 1) };
}
