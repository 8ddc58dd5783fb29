/** What one client may hold of the server, on HTTP/1.1 and HTTP/2 alike. */
export interface ConnectionLimits {
  /**
   * A connection must send its first bytes, and each request its complete headers, within this
   * (on HTTP/2: open its first stream); otherwise it is closed (HTTP/1.1: 408 first).
   */
  readonly headersTimeoutMs: number;
  /** A request, body included, must arrive within this of its start. */
  readonly requestTimeoutMs: number;
  /** A connection without a request in progress is closed after this. */
  readonly idleTimeoutMs: number;
  /** Connections open at once; further ones are closed as they arrive. */
  readonly maxConnections: number;
  /** Streams a client may open at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
  readonly http2MaxConcurrentStreams: number;
  /**
   * Stream resets (RST_STREAM) a client may send on one HTTP/2 connection: a burst, then a rate
   * per second (a token bucket); beyond it the connection is closed with GOAWAY (rapid reset,
   * CVE-2023-44487).
   */
  readonly http2StreamResetBurst: number;
  readonly http2StreamResetRate: number;
  /**
   * After an answer sent before its request had arrived (a 413, say), an HTTP/1.1 connection is
   * read and discarded before it is closed, so that a client still sending reads the answer
   * (nginx's `lingering_close`): for at most this long in all (nginx `lingering_time`)...
   */
  readonly lingerTimeMs: number;
  /** ...waiting at most this long for the client's next bytes (nginx `lingering_timeout`)... */
  readonly lingerIdleMs: number;
  /**
   * ...and reading at most this many bytes: a bound far above any body a client sends in earnest,
   * since a client cut while it still sends loses the answer it was sent (EPIPE, a reset).
   */
  readonly lingerMaxBytes: number;
}

/** The limits used when none are given; every one of them is configurable (see env.ts). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  // Longer than the 60 s idle timeout of common load balancers, which should close first.
  idleTimeoutMs: 65_000,
  maxConnections: 10_000,
  http2MaxConcurrentStreams: 100,
  http2StreamResetBurst: 100,
  http2StreamResetRate: 33,
  // Bounded by time, as nginx's (lingering_time 30 s, lingering_timeout 5 s): a client still
  // sending a body many times the limit reads its answer, and a hostile one cannot hold the
  // connection longer. The idle bound is longer than nginx's: a fetch client sending 50 bodies
  // at once on a busy 2-core machine was seen pausing its writes for 5 to 15 s. The bytes' bound
  // is 16 times the largest MAX_REQUEST_BODY_BYTES.
  lingerTimeMs: 30_000,
  lingerIdleMs: 15_000,
  lingerMaxBytes: 1024 * 1024 * 1024,
};
