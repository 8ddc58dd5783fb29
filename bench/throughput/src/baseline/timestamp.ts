/**
 * A timestamp as the protobuf JSON mapping writes a google.protobuf.Timestamp made from a JS Date
 * (what Folio's responses hold): RFC 3339 in UTC, no fraction when the milliseconds are 0, else
 * three digits: `2026-01-01T00:00:00Z`, `2026-01-01T00:00:00.500Z`.
 */
export function rfc3339(date: Date): string {
  const iso = date.toISOString();
  return date.getUTCMilliseconds() === 0 ? `${iso.slice(0, 19)}Z` : iso;
}
