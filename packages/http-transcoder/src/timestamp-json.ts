/** A `google.protobuf.Timestamp` as protobuf-es holds it. @private */
export interface TimestampLike {
  readonly seconds: bigint;
  readonly nanos: number;
}

const TIMESTAMP_MIN_MS = Date.UTC(1, 0, 1) - 1;
const TIMESTAMP_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A Timestamp as RFC 3339 with 0, 3, 6 or 9 fractional digits, as the JSON mapping writes it;
 * undefined for one out of its range, which the general path refuses with its own error.
 *
 * @private
 */
export function timestampJson(timestamp: TimestampLike): string | undefined {
  const ms = Number(timestamp.seconds) * 1000;
  const nanos = timestamp.nanos;
  if (!(ms > TIMESTAMP_MIN_MS && ms <= TIMESTAMP_MAX_MS) || nanos < 0 || nanos > 999_999_999) {
    return undefined;
  }
  const iso = new Date(ms).toISOString(); // ...T12:34:56.000Z
  const seconds = iso.slice(0, iso.length - 5);
  if (nanos === 0) return `${seconds}Z`;
  const digits = String(nanos + 1_000_000_000).slice(1);
  const fraction = digits.endsWith("000000")
    ? digits.slice(0, 3)
    : digits.endsWith("000")
      ? digits.slice(0, 6)
      : digits;
  return `${seconds}.${fraction}Z`;
}
