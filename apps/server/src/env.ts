import { resolve } from "node:path";
import type { ConnectionLimits } from "./http/listen.js";
import { loadReadReplicaConfig, type ReadReplicaConfig } from "./read-replica-config.js";

/** Everything the server reads from its environment, validated and typed. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** PostgreSQL to use; absent means the embedded database in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  readonly databaseTimeouts: DatabaseTimeouts;
  /** Replicas for project listings (DATABASE_READ_URL); undefined: every query on the primary. */
  readonly databaseRead: ReadReplicaConfig | undefined;
  readonly dataDir: string;
  readonly logLevel: string;
  readonly production: boolean;
  readonly auth: AuthConfig;
  /** On SIGTERM/SIGINT: how long new connections are still accepted once readiness says no. */
  readonly shutdownGraceMs: number;
  readonly shutdownTimeoutMs: number;
  /** Where `/metrics` is served; undefined: nowhere (METRICS_PORT=off). */
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
  /** Key of page-token signatures; undefined: a random key per process. */
  readonly pageTokenSecret: string | undefined;
  readonly rateLimit: RateLimitConfig;
  /** What one client may hold of the server: connections, time, HTTP/2 streams. */
  readonly connections: ConnectionLimits;
  /** The largest request body on every protocol, counted after decompression. */
  readonly maxRequestBodyBytes: number;
  /** Origins whose pages may call the API from a browser (CORS); empty: none. */
  readonly corsAllowedOrigins: readonly string[];
}

/** How access tokens are verified: a JWKS from the issuer, or development mode's own keys. */
export type AuthConfig =
  | ({ readonly mode: "jwks"; readonly jwksUrl: string; readonly jwksCooldownSeconds: number } & TokenRules)
  | ({ readonly mode: "jwks"; readonly jwksFile: string } & TokenRules)
  | ({ readonly mode: "development" } & TokenRules);

interface TokenRules {
  readonly issuer: string;
  readonly audience: string;
  readonly algorithms: readonly string[] | undefined;
  readonly clockToleranceSeconds: number;
  readonly userClaim: string;
  readonly orgClaim: string;
  /** The issuer's OAuth 2.0 token endpoint, for the API documentation; undefined: not known. */
  readonly tokenUrl: string | undefined;
  /** Verified access tokens remembered, so a reused token is not verified again; 0: none. */
  readonly tokenCacheSize: number;
}

/** A variable that is set to something the server cannot use. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

/** Bounds on each database wait, so that a slow or unreachable database fails requests fast. */
export interface DatabaseTimeouts {
  /**
   * How long a query may wait for a connection (a free one, or a new one to open); undefined:
   * 10 s, or 30 s for the embedded database, whose one connection serves every request in turn.
   */
  readonly acquireTimeoutMs: number | undefined;
  /** PostgreSQL's statement_timeout. */
  readonly statementTimeoutMs: number;
  /** PostgreSQL's lock_timeout. */
  readonly lockTimeoutMs: number;
}

/** Requests allowed per window, per organisation and per access token; both 0 turns limits off. */
export interface RateLimitConfig {
  readonly orgRequests: number;
  readonly tokenRequests: number;
  readonly windowSeconds: number;
  /** Redis shared by every instance; undefined: counted in this process's memory. */
  readonly redisUrl: string | undefined;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and validates the configuration; throws {@link ConfigError} naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === "production";
  const host = text(env, "HOST") ?? "127.0.0.1";
  const port = integer(env, "PORT", 8080, 0, 65_535);
  const databaseUrl = text(env, "DATABASE_URL");
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError("DATABASE_URL", "must be a postgres:// or postgresql:// URL");
  }
  const logLevel = text(env, "LOG_LEVEL") ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")} (got "${logLevel}")`);
  }
  return {
    host,
    port,
    databaseUrl,
    databasePoolSize: integer(env, "DATABASE_POOL_SIZE", 10, 1, 1000),
    databaseTimeouts: {
      acquireTimeoutMs: optionalInteger(env, "DATABASE_ACQUIRE_TIMEOUT_MS", 1, 600_000),
      statementTimeoutMs: integer(env, "DATABASE_STATEMENT_TIMEOUT_MS", 5_000, 0, 600_000),
      lockTimeoutMs: integer(env, "DATABASE_LOCK_TIMEOUT_MS", 2_000, 0, 600_000),
    },
    databaseRead: loadReadReplicaConfig(env),
    dataDir: resolve(text(env, "DATA_DIR") ?? ".data"),
    logLevel,
    production,
    auth: loadAuthConfig(env, production),
    shutdownGraceMs: integer(env, "SHUTDOWN_GRACE_MS", 5_000, 0, 600_000),
    shutdownTimeoutMs: integer(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    metrics: loadMetricsConfig(env),
    pageTokenSecret: loadPageTokenSecret(env),
    rateLimit: loadRateLimitConfig(env),
    connections: loadConnectionLimits(env),
    maxRequestBodyBytes: integer(env, "MAX_REQUEST_BODY_BYTES", 1_048_576, 1024, 67_108_864),
    corsAllowedOrigins: loadCorsAllowedOrigins(env),
  };
}

function loadConnectionLimits(env: Env): ConnectionLimits {
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
  };
}

/** Comma-separated exact origins (`scheme://host[:port]`); a path, a wildcard or `null` is refused. */
function loadCorsAllowedOrigins(env: Env): string[] {
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

/** The Prometheus exporter's default port, so that scrape configs written for it find Folio too. */
const DEFAULT_METRICS_PORT = 9464;

function loadMetricsConfig(env: Env): Config["metrics"] {
  if (text(env, "METRICS_PORT")?.toLowerCase() === "off") return undefined;
  return {
    host: text(env, "METRICS_HOST") ?? "127.0.0.1",
    port: integer(env, "METRICS_PORT", DEFAULT_METRICS_PORT, 0, 65_535),
  };
}

function loadPageTokenSecret(env: Env): string | undefined {
  const secret = text(env, "PAGE_TOKEN_SECRET");
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError(
      "PAGE_TOKEN_SECRET",
      "must be at least 32 characters (e.g. openssl rand -base64 32)",
    );
  }
  return secret;
}

function loadRateLimitConfig(env: Env): RateLimitConfig {
  const redisUrl = text(env, "REDIS_URL");
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError("REDIS_URL", "must be a redis:// or rediss:// URL");
  }
  const orgRequests = integer(env, "RATE_LIMIT_ORG_REQUESTS", 6000, 0, 100_000_000);
  const tokenRequests = integer(env, "RATE_LIMIT_TOKEN_REQUESTS", 1200, 0, 100_000_000);
  if ((orgRequests === 0) !== (tokenRequests === 0)) {
    // Half a limit is more likely a typo than a wish: turning limits off takes both.
    throw new ConfigError(
      orgRequests === 0 ? "RATE_LIMIT_ORG_REQUESTS" : "RATE_LIMIT_TOKEN_REQUESTS",
      "is 0 (off) while the other rate limit is on: set both to 0 to turn rate limiting off",
    );
  }
  return {
    orgRequests,
    tokenRequests,
    windowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1, 86_400),
    redisUrl,
  };
}

function loadAuthConfig(env: Env, production: boolean): AuthConfig {
  const jwksUrl = text(env, "AUTH_JWKS_URL");
  const jwksFile = text(env, "AUTH_JWKS_FILE");
  if (jwksUrl !== undefined && jwksFile !== undefined) {
    throw new ConfigError("AUTH_JWKS_URL", "and AUTH_JWKS_FILE are exclusive: set one");
  }
  const development = jwksUrl === undefined && jwksFile === undefined;
  if (development && production) {
    throw new ConfigError(
      "AUTH_JWKS_URL",
      "(or AUTH_JWKS_FILE) is required when NODE_ENV=production: development mode signs its own tokens",
    );
  }
  if (jwksUrl !== undefined && !/^https?:\/\//.test(jwksUrl)) {
    throw new ConfigError("AUTH_JWKS_URL", "must be an http(s) URL");
  }
  const issuer = text(env, "AUTH_ISSUER");
  const audience = text(env, "AUTH_AUDIENCE");
  if (!development && issuer === undefined) throw new ConfigError("AUTH_ISSUER", "is required with a JWKS");
  if (!development && audience === undefined)
    throw new ConfigError("AUTH_AUDIENCE", "is required with a JWKS");
  const rules: TokenRules = {
    issuer: issuer ?? "folio-development",
    audience: audience ?? "folio",
    algorithms: text(env, "AUTH_ALGORITHMS")
      ?.split(",")
      .map((a) => a.trim()),
    clockToleranceSeconds: integer(env, "AUTH_CLOCK_TOLERANCE_SECONDS", 30, 0, 300),
    userClaim: text(env, "AUTH_USER_CLAIM") ?? "sub",
    orgClaim: text(env, "AUTH_ORG_CLAIM") ?? "org_id",
    tokenUrl: text(env, "AUTH_TOKEN_URL"),
    tokenCacheSize: integer(env, "AUTH_TOKEN_CACHE_SIZE", 10_000, 0, 1_000_000),
  };
  if (rules.tokenUrl !== undefined && !/^https?:\/\//.test(rules.tokenUrl)) {
    throw new ConfigError("AUTH_TOKEN_URL", "must be an http(s) URL");
  }
  if (rules.algorithms?.some((a) => a === "none" || a.startsWith("HS"))) {
    throw new ConfigError("AUTH_ALGORITHMS", "must list asymmetric algorithms only (no none, no HS*)");
  }
  if (jwksUrl !== undefined) {
    const jwksCooldownSeconds = integer(env, "AUTH_JWKS_COOLDOWN_SECONDS", 30, 0, 3600);
    return { mode: "jwks", jwksUrl, jwksCooldownSeconds, ...rules };
  }
  if (jwksFile !== undefined) return { mode: "jwks", jwksFile: resolve(jwksFile), ...rules };
  return { mode: "development", ...rules };
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return text(env, name) === undefined ? undefined : integer(env, name, 0, min, max);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}
