/**
 * The page size of every listing (AIP-158), as the proto documents it on each `page_size`: 1000
 * when the request names none (0), and at most 1000, a larger size being served as 1000 rather
 * than refused. A negative size never gets here: each `page_size` declares `int32.gte = 0`.
 */
export const MAX_PAGE_SIZE = 1000;

/** The size of the page served for a request's `page_size`. */
export function servedPageSize(requested: number): number {
  return requested === 0 ? MAX_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE);
}
