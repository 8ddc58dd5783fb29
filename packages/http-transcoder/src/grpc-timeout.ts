/** Milliseconds per unit of a `Grpc-Timeout` value. */
const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

/**
 * The deadline of a `Grpc-Timeout` header, in milliseconds: at most eight digits and a unit
 * (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). grpc-gateway gives REST
 * requests the deadline of this header too. Null for a value that is no timeout.
 *
 * @private
 */
export function parseGrpcTimeout(value: string): number | null {
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (match === null) return null;
  // 99999999H is 11,000 years; a timer longer than 2^31 - 1 ms fires at once in Node.
  return Math.min(Number(match[1]) * (UNIT_MS[match[2] as string] as number), MAX_TIMER_MS);
}

/** The longest delay Node's timers keep (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
