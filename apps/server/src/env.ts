import { resolve } from "node:path";
import { type AuthConfig, loadAuthConfig } from "./config/auth.js";
import { loadCorsAllowedOrigins } from "./config/cors.js";
import {
  DATABASE_ACQUIRE_TIMEOUT_MS,
  DATABASE_LOCK_TIMEOUT_MS,
  DATABASE_POOL_SIZE,
  DATABASE_PREPARED_STATEMENTS,
  DATABASE_START_TIMEOUT_MS,
  DATABASE_STATEMENT_TIMEOUT_MS,
  DATABASE_URL,
  MIGRATE_ON_START,
} from "./config/database.js";
import { loadConnectionLimits } from "./config/http.js";
import { LOG_LEVEL, LOG_LEVELS, loadMetricsConfig } from "./config/observability.js";
import { placeholderWord } from "./config/placeholder-secret.js";
import { loadRateLimitConfig, type RateLimitConfig } from "./config/rate-limit.js";
import { loadReadReplicaConfig, type ReadReplicaConfig } from "./config/read-replica.js";
import {
  DATA_DIR,
  HOST,
  MAX_REQUEST_BODY_BYTES,
  PAGE_TOKEN_SECRET,
  PORT,
  REST_COMPRESS_MIN_BYTES,
  RPC_IN_PROCESS_UNARY,
  SHUTDOWN_GRACE_MS,
  SHUTDOWN_TIMEOUT_MS,
} from "./config/server.js";
import { loadPublicStreamLimits } from "./config/streams.js";
import { ConfigError, choice, type Env, integer, optionalInteger, text } from "./config/variables.js";
import type { ConnectionLimits } from "./transport/connection-limits.js";
import type { StreamLimits } from "./transport/public-stream-limits.js";

export type { AuthConfig } from "./config/auth.js";
export type { RateLimitConfig } from "./config/rate-limit.js";
export { ConfigError } from "./config/variables.js";

/** What the `migrate` command reads from its environment: the database, and how to log. */
export interface MigrateConfig {
  /** PostgreSQL to use; absent means the embedded database in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** How long start-up waits for the database of `databaseUrl` to accept a connection. */
  readonly databaseStartTimeoutMs: number;
  readonly dataDir: string;
  readonly logLevel: string;
}

/** Everything the server reads from its environment, validated and typed. */
export interface Config extends MigrateConfig {
  readonly host: string;
  readonly port: number;
  /** Whether the server applies pending migrations at start (else `migrate` does, as a job). */
  readonly migrateOnStart: boolean;
  readonly databasePoolSize: number;
  /** Statements prepared by name on each connection (DATABASE_PREPARED_STATEMENTS). */
  readonly databasePreparedStatements: boolean;
  readonly databaseTimeouts: DatabaseTimeouts;
  /** Replicas for project listings (DATABASE_READ_URL); undefined: every query on the primary. */
  readonly databaseRead: ReadReplicaConfig | undefined;
  readonly auth: AuthConfig;
  /** On SIGTERM/SIGINT: how long new connections are still accepted once readiness says no. */
  readonly shutdownGraceMs: number;
  readonly shutdownTimeoutMs: number;
  /** Where `/metrics` is served; undefined: nowhere (METRICS_PORT=off). */
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
  /** Secrets of page-token keys, current first (it seals, all open); empty: a random key per process. */
  readonly pageTokenSecrets: readonly string[];
  readonly rateLimit: RateLimitConfig;
  /** What one client may hold of the server: connections, time, HTTP/2 streams. */
  readonly connections: ConnectionLimits;
  /** What gRPC health Watch and server reflection streams may hold: per connection, per process, in age. */
  readonly publicStreams: StreamLimits;
  /** The largest request body on every protocol, counted after decompression. */
  readonly maxRequestBodyBytes: number;
  /** REST answers at least this large are compressed for a client that accepts br, zstd or gzip. */
  readonly restCompressMinBytes: number;
  /** Origins whose pages may call the API from a browser (CORS); empty: none. */
  readonly corsAllowedOrigins: readonly string[];
  /**
   * Unary Connect, gRPC and gRPC-Web calls are called in-process (transport/unary); false:
   * connect-es's handlers serve every call (RPC_IN_PROCESS_UNARY=off), to compare the two.
   */
  readonly rpcInProcessUnary: boolean;
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

/** Reads and validates what `migrate` needs; throws {@link ConfigError} naming the first bad variable. */
export function loadMigrateConfig(env: Env = process.env): MigrateConfig {
  const databaseUrl = text(env, DATABASE_URL);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError("DATABASE_URL", "must be a postgres:// or postgresql:// URL");
  }
  const logLevel = text(env, LOG_LEVEL);
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")} (got "${logLevel}")`);
  }
  return {
    databaseUrl,
    databaseStartTimeoutMs: integer(env, DATABASE_START_TIMEOUT_MS),
    dataDir: resolve(text(env, DATA_DIR)),
    logLevel,
  };
}

/** Reads and validates the configuration; throws {@link ConfigError} naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const host = text(env, HOST);
  const port = integer(env, PORT);
  const migrate = loadMigrateConfig(env);
  return {
    host,
    port,
    ...migrate,
    migrateOnStart: choice(env, MIGRATE_ON_START) === "true",
    databasePoolSize: integer(env, DATABASE_POOL_SIZE),
    databasePreparedStatements: choice(env, DATABASE_PREPARED_STATEMENTS) === "true",
    databaseTimeouts: {
      acquireTimeoutMs: optionalInteger(env, DATABASE_ACQUIRE_TIMEOUT_MS),
      statementTimeoutMs: integer(env, DATABASE_STATEMENT_TIMEOUT_MS),
      lockTimeoutMs: integer(env, DATABASE_LOCK_TIMEOUT_MS),
    },
    databaseRead: loadReadReplicaConfig(env),
    auth: loadAuthConfig(env, migrate.databaseUrl),
    shutdownGraceMs: integer(env, SHUTDOWN_GRACE_MS),
    shutdownTimeoutMs: integer(env, SHUTDOWN_TIMEOUT_MS),
    metrics: loadMetricsConfig(env),
    pageTokenSecrets: loadPageTokenSecrets(env),
    rateLimit: loadRateLimitConfig(env),
    connections: loadConnectionLimits(env),
    publicStreams: loadPublicStreamLimits(env),
    maxRequestBodyBytes: integer(env, MAX_REQUEST_BODY_BYTES),
    restCompressMinBytes: integer(env, REST_COMPRESS_MIN_BYTES),
    corsAllowedOrigins: loadCorsAllowedOrigins(env),
    rpcInProcessUnary: choice(env, RPC_IN_PROCESS_UNARY) === "on",
  };
}

/** PAGE_TOKEN_SECRET's comma-separated secrets, in order; each one 32 characters or more. */
function loadPageTokenSecrets(env: Env): string[] {
  const list = text(env, PAGE_TOKEN_SECRET);
  if (list === undefined) return [];
  const secrets = list.split(",").map((secret) => secret.trim());
  for (const [index, secret] of secrets.entries()) {
    if (secret.length < 32) {
      // Named by its place: the value is a secret, not for logs.
      throw new ConfigError(
        "PAGE_TOKEN_SECRET",
        `must list secrets of at least 32 characters each, comma-separated (secret ${index + 1} of ${secrets.length} has ${secret.length}; e.g. openssl rand -base64 32)`,
      );
    }
    // A placeholder copied from an example passes the length check, and would be the same secret
    // in every deployment that copied it.
    const word = placeholderWord(secret);
    if (word !== undefined) {
      throw new ConfigError(
        "PAGE_TOKEN_SECRET",
        `must list secrets, not placeholders (secret ${index + 1} of ${secrets.length} contains "${word}"; set the output of openssl rand -base64 32)`,
      );
    }
  }
  return secrets;
}
