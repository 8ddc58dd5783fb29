import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "../transport/connection-limits.js";
import { ConfigError, type Env, integer, integerSetting, type SettingGroup } from "./variables.js";

/** The defaults live with the limits (why each is what it is), which listen() applies when given none. */
const DEFAULT = DEFAULT_CONNECTION_LIMITS;

export const HTTP_HEADERS_TIMEOUT_MS = integerSetting({
  name: "HTTP_HEADERS_TIMEOUT_MS",
  fallback: DEFAULT.headersTimeoutMs,
  min: 100,
  max: 600_000,
  meaning:
    "A new connection must send its first bytes, and every HTTP/1.1 request its complete headers, " +
    "within this; otherwise it is closed (HTTP/1.1: after a 408 in the error envelope). An HTTP/2 " +
    "connection must open its first stream within it.",
});

export const HTTP_REQUEST_TIMEOUT_MS = integerSetting({
  name: "HTTP_REQUEST_TIMEOUT_MS",
  fallback: DEFAULT.requestTimeoutMs,
  min: 100,
  max: 3_600_000,
  meaning:
    "A request, body included, must have arrived within this of its start (HTTP/1.1: 408 and closed; " +
    "HTTP/2: the stream is cancelled). At least `HTTP_HEADERS_TIMEOUT_MS`.",
});

export const HTTP_IDLE_TIMEOUT_MS = integerSetting({
  name: "HTTP_IDLE_TIMEOUT_MS",
  fallback: DEFAULT.idleTimeoutMs,
  min: 100,
  max: 3_600_000,
  meaning:
    "A connection without a request in progress is closed after this (HTTP/1.1 keep-alive; HTTP/2 " +
    "with a GOAWAY, whatever PINGs it sends).",
});

export const HTTP_MAX_CONNECTIONS = integerSetting({
  name: "HTTP_MAX_CONNECTIONS",
  fallback: DEFAULT.maxConnections,
  min: 1,
  max: 1_000_000,
  meaning:
    "Connections open at once; further ones are closed as they arrive. Keep it below the process's " +
    "file-descriptor limit (`ulimit -n`).",
});

export const HTTP2_MAX_CONCURRENT_STREAMS = integerSetting({
  name: "HTTP2_MAX_CONCURRENT_STREAMS",
  fallback: DEFAULT.http2MaxConcurrentStreams,
  min: 1,
  max: 10_000,
  meaning:
    "Streams one HTTP/2 connection may have open at once (advertised in SETTINGS; streams beyond it " +
    "are refused).",
});

export const HTTP2_STREAM_RESET_BURST = integerSetting({
  name: "HTTP2_STREAM_RESET_BURST",
  fallback: DEFAULT.http2StreamResetBurst,
  min: 1,
  max: 100_000,
  meaning:
    "Stream resets (RST_STREAM) one HTTP/2 connection may send in a burst; beyond it and " +
    "`HTTP2_STREAM_RESET_RATE` the connection is closed (rapid reset).",
});

export const HTTP2_STREAM_RESET_RATE = integerSetting({
  name: "HTTP2_STREAM_RESET_RATE",
  fallback: DEFAULT.http2StreamResetRate,
  min: 1,
  max: 100_000,
  meaning: "Stream resets per second one HTTP/2 connection may send after the burst.",
});

export const HTTP_LINGER_TIME_MS = integerSetting({
  name: "HTTP_LINGER_TIME_MS",
  fallback: DEFAULT.lingerTimeMs,
  min: 0,
  max: 600_000,
  meaning:
    "After an answer sent before its request body arrived (413, 415, 401 before the body), an " +
    "HTTP/1.1 connection is half-closed and what the client still sends is read and dropped, so that " +
    "a client still sending reads the answer (nginx's `lingering_close`); for at most this long in " +
    "all, then the connection is closed. `0` closes at once.",
});

export const HTTP_LINGER_IDLE_MS = integerSetting({
  name: "HTTP_LINGER_IDLE_MS",
  fallback: DEFAULT.lingerIdleMs,
  min: 0,
  max: 600_000,
  meaning:
    "During that lingering close, the longest wait for the client's next bytes (nginx's `lingering_timeout`).",
});

export const HTTP_LINGER_MAX_BYTES = integerSetting({
  name: "HTTP_LINGER_MAX_BYTES",
  fallback: DEFAULT.lingerMaxBytes,
  min: 0,
  // 1 TiB: as good as no byte bound at all; the lingering close is bounded by time.
  max: 1024 ** 4,
  meaning:
    "During that lingering close, the most bytes read and dropped (far above any real body: the " +
    "close is bounded by time); a client that sends more is cut.",
});

/** What one client may hold of the server. */
export const httpSettings: SettingGroup = {
  title: "Connections",
  settings: [
    HTTP_HEADERS_TIMEOUT_MS,
    HTTP_REQUEST_TIMEOUT_MS,
    HTTP_IDLE_TIMEOUT_MS,
    HTTP_MAX_CONNECTIONS,
    HTTP2_MAX_CONCURRENT_STREAMS,
    HTTP2_STREAM_RESET_BURST,
    HTTP2_STREAM_RESET_RATE,
    HTTP_LINGER_TIME_MS,
    HTTP_LINGER_IDLE_MS,
    HTTP_LINGER_MAX_BYTES,
  ],
};

/**
 * Reads the HTTP_* and HTTP2_* limits of what one client may hold of the server, the bounds of
 * the lingering close after an early answer among them.
 */
export function loadConnectionLimits(env: Env): ConnectionLimits {
  const headersTimeoutMs = integer(env, HTTP_HEADERS_TIMEOUT_MS);
  const requestTimeoutMs = integer(env, HTTP_REQUEST_TIMEOUT_MS);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      "HTTP_REQUEST_TIMEOUT_MS",
      `must not be shorter than HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    idleTimeoutMs: integer(env, HTTP_IDLE_TIMEOUT_MS),
    maxConnections: integer(env, HTTP_MAX_CONNECTIONS),
    http2MaxConcurrentStreams: integer(env, HTTP2_MAX_CONCURRENT_STREAMS),
    http2StreamResetBurst: integer(env, HTTP2_STREAM_RESET_BURST),
    http2StreamResetRate: integer(env, HTTP2_STREAM_RESET_RATE),
    lingerTimeMs: integer(env, HTTP_LINGER_TIME_MS),
    lingerIdleMs: integer(env, HTTP_LINGER_IDLE_MS),
    lingerMaxBytes: integer(env, HTTP_LINGER_MAX_BYTES),
  };
}
