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
  /** ...and reading at most this many bytes. */
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
  // A few seconds, a few MiB: a hostile client cannot hold the connection.
  lingerTimeMs: 5_000,
  lingerIdleMs: 2_000,
  lingerMaxBytes: 4 * 1024 * 1024,
};
