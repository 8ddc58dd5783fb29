import { join } from "node:path";
import {
  applyMigrations,
  checkSessionTimeouts,
  createDb,
  type Db,
  type OnQueryFailure,
  sessionTimeouts,
} from "@folio/db";
import type { EmbeddedPostgres } from "@folio/embedded-postgres";
import type { Logger } from "pino";
import type { Config } from "../env.js";
import { replicaOptions } from "./read-replica.js";

/** How long a query waits for the embedded database's one connection, unless configured. */
const EMBEDDED_ACQUIRE_TIMEOUT_MS = 30_000;

/** The database the server runs on, migrated and pooled. */
export interface Database {
  readonly db: Db;
  /** True for the embedded PostgreSQL in DATA_DIR. */
  readonly embedded: boolean;
  readonly url: string;
  /** Closes the pool, then stops the embedded database if it runs one. */
  close(): Promise<void>;
}

/**
 * Opens the configured PostgreSQL, or starts the embedded one in DATA_DIR when DATABASE_URL is
 * unset, and applies the migrations before anything is served. `onQueryFailure` is told of each
 * query that fails (the metrics count them).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  onQueryFailure: OnQueryFailure,
): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let embeddedPoolSize = 0;
  let url = config.databaseUrl;
  if (url === undefined) {
    // Loaded only when used: PGlite is a large module the server does not need with DATABASE_URL.
    const { EMBEDDED_POOL_SIZE, startEmbeddedPostgres } = await import("@folio/embedded-postgres");
    embeddedPoolSize = EMBEDDED_POOL_SIZE;
    embedded = await startEmbeddedPostgres({ dataDir: join(config.dataDir, "postgres") });
    url = embedded.url;
    logger.info({ dataDir: embedded.dataDir }, "using the embedded PostgreSQL");
  }
  try {
    const { applied } = await applyMigrations(url, { log: (message) => logger.info(message) });
    logger.info({ applied }, applied.length > 0 ? "migrations applied" : "database schema up to date");
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const { acquireTimeoutMs, statementTimeoutMs, lockTimeoutMs } = config.databaseTimeouts;
  if (embedded === undefined)
    await warnOfTimeoutsNotApplied(url, { statementTimeoutMs, lockTimeoutMs }, logger);
  const db = createDb(url, {
    // The embedded database decides its own pool size (see EMBEDDED_POOL_SIZE); with one
    // connection, requests queue for it, so they may wait longer for their turn.
    poolSize: embedded === undefined ? config.databasePoolSize : embeddedPoolSize,
    acquireTimeoutMs: acquireTimeoutMs ?? (embedded === undefined ? 10_000 : EMBEDDED_ACQUIRE_TIMEOUT_MS),
    statementTimeoutMs,
    lockTimeoutMs,
    onConnectionError: (error) => logger.warn({ err: error }, "database connection lost"),
    onQueryFailure,
    ...(config.databaseRead === undefined ? {} : { replica: replicaOptions(config.databaseRead, logger) }),
  });
  return {
    db,
    embedded: embedded !== undefined,
    url,
    async close() {
      await db.close();
      await embedded?.stop();
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
