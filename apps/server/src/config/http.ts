import type { ConnectionLimits } from "../transport/connection-limits.js";
import { ConfigError, type Env, integer, text } from "./variables.js";

/** The largest HTTP_LINGER_MAX_BYTES: 1 TiB, as good as no byte bound at all. */
const MAX_LINGER_BYTES = 1024 ** 4;

/**
 * Reads the HTTP_* and HTTP2_* limits of what one client may hold of the server, the bounds of
 * the lingering close after an early answer among them.
 */
export function loadConnectionLimits(env: Env): ConnectionLimits {
  const headersTimeoutMs = integer(env, "HTTP_HEADERS_TIMEOUT_MS", 15_000, 100, 600_000);
  const requestTimeoutMs = integer(env, "HTTP_REQUEST_TIMEOUT_MS", 60_000, 100, 3_600_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      "HTTP_REQUEST_TIMEOUT_MS",
      `must not be shorter than HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    idleTimeoutMs: integer(env, "HTTP_IDLE_TIMEOUT_MS", 65_000, 100, 3_600_000),
    maxConnections: integer(env, "HTTP_MAX_CONNECTIONS", 10_000, 1, 1_000_000),
    http2MaxConcurrentStreams: integer(env, "HTTP2_MAX_CONCURRENT_STREAMS", 100, 1, 10_000),
    http2StreamResetBurst: integer(env, "HTTP2_STREAM_RESET_BURST", 100, 1, 100_000),
    http2StreamResetRate: integer(env, "HTTP2_STREAM_RESET_RATE", 33, 1, 100_000),
    // Bounded by time, as nginx's lingering close; the bytes only far above any earnest body.
    lingerTimeMs: integer(env, "HTTP_LINGER_TIME_MS", 30_000, 0, 600_000),
    lingerIdleMs: integer(env, "HTTP_LINGER_IDLE_MS", 15_000, 0, 600_000),
    lingerMaxBytes: integer(env, "HTTP_LINGER_MAX_BYTES", 1024 ** 3, 0, MAX_LINGER_BYTES),
  };
}

/** Comma-separated exact origins (`scheme://host[:port]`); a path, a wildcard or `null` is refused. */
export function loadCorsAllowedOrigins(env: Env): string[] {
  const origins = (text(env, "CORS_ALLOWED_ORIGINS") ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  for (const origin of origins) {
    // An origin is what URL.origin serialises to: browsers send exactly that in the Origin header.
    if (
      !URL.canParse(origin) ||
      !/^https?:$/.test(new URL(origin).protocol) ||
      new URL(origin).origin !== origin
    ) {
      throw new ConfigError(
        "CORS_ALLOWED_ORIGINS",
        `must list origins such as https://app.example.com or http://localhost:5173, without path or trailing slash (got "${origin}")`,
      );
    }
  }
  return origins;
}
