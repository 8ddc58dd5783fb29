import { checkSessionTimeouts, createDb, type Db, type OnQueryFailure, sessionTimeouts } from "@folio/db";
import type { Logger } from "pino";
import type { Config } from "../env.js";
import { settlesWithin } from "../settles-within.js";
import { applyPendingMigrations, listPendingMigrations } from "./migrations.js";
import { reachDatabase } from "./reach-database.js";
import { replicaOptions } from "./read-replica.js";

/** How long a query waits for the embedded database's one connection, unless configured. */
const EMBEDDED_ACQUIRE_TIMEOUT_MS = 30_000;

/** How long each step of closing the database waits, unless told. */
const CLOSE_TIMEOUT_MS = 5_000;

/** The database the server runs on, migrated and pooled. */
export interface Database {
  readonly db: Db;
  /** True for the embedded PostgreSQL in DATA_DIR. */
  readonly embedded: boolean;
  readonly url: string;
  /**
   * The migrations not applied when the database was opened: none unless MIGRATE_ON_START=false
   * (readiness follows them from there on).
   */
  readonly pendingAtStart: readonly string[];
  /**
   * Closes the pool, then stops the embedded database if it runs one, each within `timeoutMs`
   * (default 5 s): statements still running are cancelled, and logged.
   */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Opens the configured PostgreSQL once it accepts connections (waiting up to
 * DATABASE_START_TIMEOUT_MS), or starts the embedded one in DATA_DIR when DATABASE_URL is unset,
 * and applies the migrations before anything is served, unless MIGRATE_ON_START=false leaves them
 * to `migrate`. `onQueryFailure` is told of each query that fails (the metrics count them).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  onQueryFailure: OnQueryFailure,
): Promise<Database> {
  const reached = await reachDatabase(config, logger);
  const url = reached.url;
  const embedded = reached.embedded;
  let pendingAtStart: string[] = [];
  try {
    if (config.migrateOnStart) await applyPendingMigrations(url, logger);
    else {
      pendingAtStart = await listPendingMigrations(url);
      if (pendingAtStart.length > 0) {
        logger.warn(
          { pending: pendingAtStart },
          "migrations pending, left to `node dist/main.js migrate` (MIGRATE_ON_START=false): not ready until they are applied",
        );
      }
    }
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const { acquireTimeoutMs, statementTimeoutMs, lockTimeoutMs } = config.databaseTimeouts;
  // Not awaited: a warning to log, not a condition of serving, so its connection and query are
  // not on the way to the first answer.
  if (embedded === undefined)
    void warnOfTimeoutsNotApplied(url, { statementTimeoutMs, lockTimeoutMs }, logger);
  const db = createDb(url, {
    // The embedded database decides its own pool size (see EMBEDDED_POOL_SIZE); with one
    // connection, requests queue for it, so they may wait longer for their turn.
    poolSize: embedded === undefined ? config.databasePoolSize : embedded.poolSize,
    acquireTimeoutMs: acquireTimeoutMs ?? (embedded === undefined ? 10_000 : EMBEDDED_ACQUIRE_TIMEOUT_MS),
    statementTimeoutMs,
    lockTimeoutMs,
    onConnectionError: (error) => logger.warn({ err: error }, "database connection lost"),
    onQueryFailure,
    // PGlite is one session that every connection shares: a client that reconnects would find its
    // names taken. One connection to an in-process database gains little from them anyway.
    preparedStatements: embedded === undefined && config.databasePreparedStatements,
    onPreparedStatementsNotKept: () =>
      logger.warn(
        "the database does not keep prepared statements (a pooler in transaction mode?): statements run unnamed from now on; set DATABASE_PREPARED_STATEMENTS=false",
      ),
    ...(config.databaseRead === undefined ? {} : { replica: replicaOptions(config.databaseRead, logger) }),
  });
  return {
    db,
    embedded: embedded !== undefined,
    url,
    pendingAtStart,
    async close(timeoutMs = CLOSE_TIMEOUT_MS) {
      const { cancelled, cut } = await db.close({ timeoutMs });
      if (cancelled > 0) {
        logger.warn(
          { cancelledStatements: cancelled, cutDatabaseConnections: cut },
          cut === 0
            ? "closing the database: statements still running were cancelled"
            : "closing the database: statements still running were cancelled; connections not given back in time were closed",
        );
      }
      // PGlite gives up nothing it is running: past the bound it is left to the process's exit, and
      // its data directory recovers at the next start as after a crash.
      if (embedded !== undefined && !(await settlesWithin(embedded.stop(), timeoutMs))) {
        logger.warn({ timeoutMs }, "the embedded database did not stop in time");
      }
    },
  };
}

/** The configuration variable of each PostgreSQL timeout the server asks for. */
const TIMEOUT_VARIABLES: Record<string, string> = {
  statement_timeout: "DATABASE_STATEMENT_TIMEOUT_MS",
  lock_timeout: "DATABASE_LOCK_TIMEOUT_MS",
  idle_in_transaction_session_timeout: "DATABASE_STATEMENT_TIMEOUT_MS (twice it, at least 10 s)",
};

/**
 * Warns when connections do not get the timeouts the server asks for: a pooler in transaction mode
 * (PgBouncer) drops them, and then only the database's or role's own settings bound a query.
 */
async function warnOfTimeoutsNotApplied(
  url: string,
  options: { statementTimeoutMs: number; lockTimeoutMs: number },
  logger: Logger,
): Promise<void> {
  const mismatches = await checkSessionTimeouts(url, sessionTimeouts(options)).catch(() => []);
  for (const { setting, askedMs, gotMs } of mismatches) {
    logger.warn(
      { setting, askedMs, gotMs },
      `connections get ${setting} = ${gotMs} ms, not the ${askedMs} ms of ${TIMEOUT_VARIABLES[setting]}: a connection pooler ` +
        `(PgBouncer) drops it; set it on the database or role instead (ALTER ROLE <user> SET ${setting} = ${askedMs}; see docs/operations.md)`,
    );
  }
}
