import { ConfigError, type Env, integer, text } from "./variables.js";

/** Where project listings are read when replicas are configured (DATABASE_READ_URL). */
export interface ReadReplicaConfig {
  readonly url: string;
  readonly poolSize: number;
  /** How long a listing waits for a replica connection before it reads from the primary. */
  readonly acquireTimeoutMs: number;
  /** Replay lag past which listings read from the primary. */
  readonly maxLagMs: number;
}

/** Reads DATABASE_READ_URL and its settings; undefined when it is unset (every query on the primary). */
export function loadReadReplicaConfig(env: Env): ReadReplicaConfig | undefined {
  const url = text(env, "DATABASE_READ_URL");
  if (url === undefined) {
    for (const name of [
      "DATABASE_READ_POOL_SIZE",
      "DATABASE_READ_ACQUIRE_TIMEOUT_MS",
      "DATABASE_READ_MAX_LAG_MS",
    ]) {
      // A replica setting without a replica is a mistake to point out, not to ignore.
      if (text(env, name) !== undefined) throw new ConfigError(name, "is set but DATABASE_READ_URL is not");
    }
    return undefined;
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError("DATABASE_READ_URL", "must be a postgres:// or postgresql:// URL");
  }
  if (text(env, "DATABASE_URL") === undefined) {
    throw new ConfigError(
      "DATABASE_READ_URL",
      "needs DATABASE_URL (the primary): the embedded database has no replicas",
    );
  }
  return {
    url,
    poolSize: integer(env, "DATABASE_READ_POOL_SIZE", 10, 1, 1000),
    acquireTimeoutMs: integer(env, "DATABASE_READ_ACQUIRE_TIMEOUT_MS", 2_000, 1, 600_000),
    maxLagMs: integer(env, "DATABASE_READ_MAX_LAG_MS", 2_000, 0, 3_600_000),
  };
}
