/** What the streams of the bounded services may hold of the server. */
export interface StreamLimits {
  /** Streams open at once on one connection. */
  readonly perConnection: number;
  /** Streams open at once in the process. */
  readonly perProcess: number;
  /** How long a stream stays open; then it ends with OK, and its client opens another. */
  readonly maxAgeMs: number;
}

/**
 * The defaults (PUBLIC_STREAMS_PER_CONNECTION, PUBLIC_STREAMS_PER_PROCESS, PUBLIC_STREAM_MAX_AGE_MS).
 * A gRPC client watches a service or two and reflects one schema at a time, so ten per connection
 * leaves room to spare. A held Watch stream costs the process some 50 KB (2,000 took 96 MiB of
 * RSS, garbage collected), so a thousand stay under 50 MiB. Five minutes: a client re-opening its
 * stream that seldom costs nothing noticeable, and streams pinned to one instance spread again
 * after instances are added.
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { perConnection: 10, perProcess: 1000, maxAgeMs: 300_000 };
