import { DATABASE_URL } from "./database.js";
import {
  ConfigError,
  type Env,
  integer,
  integerSetting,
  raw,
  type SettingGroup,
  text,
  textSetting,
} from "./variables.js";

/** Where project listings are read when replicas are configured (DATABASE_READ_URL). */
export interface ReadReplicaConfig {
  readonly url: string;
  readonly poolSize: number;
  /** How long a listing waits for a replica connection before it reads from the primary. */
  readonly acquireTimeoutMs: number;
  /** Replay lag past which listings read from the primary. */
  readonly maxLagMs: number;
}

export const DATABASE_READ_URL = textSetting({
  name: "DATABASE_READ_URL",
  values: "a `postgres://` or `postgresql://` URL",
  meaning:
    "`postgres://` URL of read replicas (a hot standby, or a proxy port that balances over several, " +
    "e.g. HAProxy checking Patroni's `GET /replica`): ListProjects, ListFolders and GetFolder read " +
    "there, on a pool of its own. Everything that writes or must see its own write (creates, " +
    "idempotency keys, a create's parent check) " +
    "stays on `DATABASE_URL`. Reads go to the primary while the replicas are unreachable or lag past " +
    "`DATABASE_READ_MAX_LAG_MS`, and to the replicas while the primary is unreachable (failing over). " +
    "Needs `DATABASE_URL`. See [Read replicas](operations.md#read-replicas).",
});

export const DATABASE_READ_POOL_SIZE = integerSetting({
  name: "DATABASE_READ_POOL_SIZE",
  fallback: 10,
  min: 1,
  max: 1000,
  meaning: "Connections in the replica pool (with `DATABASE_READ_URL`).",
});

export const DATABASE_READ_ACQUIRE_TIMEOUT_MS = integerSetting({
  name: "DATABASE_READ_ACQUIRE_TIMEOUT_MS",
  fallback: 2_000,
  min: 1,
  max: 600_000,
  meaning: "How long a listing waits for a replica connection before it is read from the primary instead.",
});

export const DATABASE_READ_MAX_LAG_MS = integerSetting({
  name: "DATABASE_READ_MAX_LAG_MS",
  fallback: 2_000,
  min: 0,
  max: 3_600_000,
  meaning:
    "Replay lag of the replica past which listings read from the primary (checked every second: " +
    "`now()` minus the last replayed transaction's time, 0 when the replica has replayed all it " +
    "received). `0`: only a replica fully caught up serves.",
});

/** The replicas project listings are read from. */
export const readReplicaSettings: SettingGroup = {
  title: "Read replicas",
  settings: [
    DATABASE_READ_URL,
    DATABASE_READ_POOL_SIZE,
    DATABASE_READ_ACQUIRE_TIMEOUT_MS,
    DATABASE_READ_MAX_LAG_MS,
  ],
};

/** Reads DATABASE_READ_URL and its settings; undefined when it is unset (every query on the primary). */
export function loadReadReplicaConfig(env: Env): ReadReplicaConfig | undefined {
  const url = text(env, DATABASE_READ_URL);
  if (url === undefined) {
    for (const setting of [
      DATABASE_READ_POOL_SIZE,
      DATABASE_READ_ACQUIRE_TIMEOUT_MS,
      DATABASE_READ_MAX_LAG_MS,
    ]) {
      // A replica setting without a replica is a mistake to point out, not to ignore.
      if (raw(env, setting) !== undefined) {
        throw new ConfigError(setting.name, "is set but DATABASE_READ_URL is not");
      }
    }
    return undefined;
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError("DATABASE_READ_URL", "must be a postgres:// or postgresql:// URL");
  }
  if (text(env, DATABASE_URL) === undefined) {
    throw new ConfigError(
      "DATABASE_READ_URL",
      "needs DATABASE_URL (the primary): the embedded database has no replicas",
    );
  }
  return {
    url,
    poolSize: integer(env, DATABASE_READ_POOL_SIZE),
    acquireTimeoutMs: integer(env, DATABASE_READ_ACQUIRE_TIMEOUT_MS),
    maxLagMs: integer(env, DATABASE_READ_MAX_LAG_MS),
  };
}
