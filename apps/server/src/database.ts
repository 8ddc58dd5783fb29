import { join } from "node:path";
import { applyMigrations, createDb, type Db } from "@folio/db";
import { EMBEDDED_POOL_SIZE, type EmbeddedPostgres, startEmbeddedPostgres } from "@folio/embedded-postgres";
import type { Logger } from "pino";
import type { Config } from "./env.js";

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
 * unset, and applies the migrations before anything is served.
 */
export async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (url === undefined) {
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
  const db = createDb(url, {
    // The embedded database decides its own pool size (see EMBEDDED_POOL_SIZE); with one
    // connection, requests queue for it, so they may wait longer for their turn.
    poolSize: embedded === undefined ? config.databasePoolSize : EMBEDDED_POOL_SIZE,
    acquireTimeoutMs: acquireTimeoutMs ?? (embedded === undefined ? 10_000 : EMBEDDED_ACQUIRE_TIMEOUT_MS),
    statementTimeoutMs,
    lockTimeoutMs,
    onConnectionError: (error) => logger.warn({ err: error }, "database connection lost"),
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
