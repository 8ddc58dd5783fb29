import { choiceSetting, integerSetting, type SettingGroup, textSetting } from "./variables.js";

export const DATABASE_URL = textSetting({
  name: "DATABASE_URL",
  values: "a `postgres://` or `postgresql://` URL",
  meaning:
    "`postgres://` URL of the PostgreSQL to use. Unset: the embedded PostgreSQL in " +
    "`DATA_DIR/postgres`. Either way `node dist/main.js migrate` applies the migrations, and the " +
    "server does at start unless `MIGRATE_ON_START=false`. Shown in messages without its password.",
});

export const MIGRATE_ON_START = choiceSetting({
  name: "MIGRATE_ON_START",
  choices: ["true", "false"],
  fallback: "true",
  meaning:
    "`true`: the server applies pending migrations at start, before it listens (the runner's lock " +
    "makes instances starting at once take turns). `false`: it applies none and leaves them to " +
    "`node dist/main.js migrate`, run as a job before the rollout (see " +
    "[Migrations](operations.md#migrations)); while any is pending, `/readyz` answers 503 " +
    "(`migrations-pending`), checked again each second.",
});

export const DATABASE_START_TIMEOUT_MS = integerSetting({
  name: "DATABASE_START_TIMEOUT_MS",
  fallback: 60_000,
  min: 0,
  max: 3_600_000,
  meaning:
    "How long the server (and `migrate`) waits at start for the PostgreSQL of `DATABASE_URL` to " +
    "accept a connection, retrying with back-off (0.25 s doubling to 5 s; each failed attempt " +
    "logged as a warning, nothing served meanwhile); past it, the process exits 1 with one line " +
    "naming `DATABASE_URL`. `0`: one attempt. A refused login or a missing database fails at once.",
});

export const DATABASE_POOL_SIZE = integerSetting({
  name: "DATABASE_POOL_SIZE",
  fallback: 10,
  min: 1,
  max: 1000,
  meaning:
    "Connections in the database pool (the embedded database always gets one: PGlite is single-session).",
});

/** Its default lives with the pool (database/open-database.ts): it depends on the database. */
export const DATABASE_ACQUIRE_TIMEOUT_MS = integerSetting({
  name: "DATABASE_ACQUIRE_TIMEOUT_MS",
  fallback: undefined,
  default: "`10000` (embedded: `30000`)",
  min: 1,
  max: 600_000,
  meaning:
    "How long a query waits for a database connection (a free one of the pool, or a new one). Past " +
    "it the request is 503 `unavailable` with `Retry-After`.",
});

export const DATABASE_STATEMENT_TIMEOUT_MS = integerSetting({
  name: "DATABASE_STATEMENT_TIMEOUT_MS",
  fallback: 5_000,
  min: 0,
  max: 600_000,
  meaning:
    "PostgreSQL `statement_timeout` of every query; `0` turns it off. A query past it is 503 `unavailable`.",
});

export const DATABASE_LOCK_TIMEOUT_MS = integerSetting({
  name: "DATABASE_LOCK_TIMEOUT_MS",
  fallback: 2_000,
  min: 0,
  max: 600_000,
  meaning:
    "PostgreSQL `lock_timeout`: how long a query waits for a lock another session holds; `0` turns " +
    "it off. Past it the request is 503 `unavailable`, so one locked table cannot hold every connection.",
});

export const DATABASE_PREPARED_STATEMENTS = choiceSetting({
  name: "DATABASE_PREPARED_STATEMENTS",
  choices: ["true", "false"],
  fallback: "true",
  meaning:
    "`true`: the server's statements are prepared by name on each connection, so PostgreSQL plans " +
    "each once per connection (a create costs it 38% less CPU; see " +
    "[benchmarks](benchmarks.md#creates-at-the-peers-rate)). `false` behind a pooler in transaction " +
    "mode that cannot keep them (PgBouncer before 1.21, as in Debian 12): left `true` there, the " +
    "first statement the server refuses (SQLSTATE 26000 or 42P05) is run again unnamed, one " +
    "warning is logged, and every statement is unnamed from then on. The embedded database: always " +
    "`false` (PGlite is one session that every connection shares).",
});

/** The PostgreSQL every query runs on (but listings, with replicas), and how long each wait may be. */
export const databaseSettings: SettingGroup = {
  title: "Database",
  settings: [
    DATABASE_URL,
    MIGRATE_ON_START,
    DATABASE_START_TIMEOUT_MS,
    DATABASE_POOL_SIZE,
    DATABASE_ACQUIRE_TIMEOUT_MS,
    DATABASE_STATEMENT_TIMEOUT_MS,
    DATABASE_LOCK_TIMEOUT_MS,
    DATABASE_PREPARED_STATEMENTS,
  ],
};
