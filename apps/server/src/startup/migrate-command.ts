import { pino } from "pino";
import { applyPendingMigrations, listPendingMigrations } from "../database/migrations.js";
import { type ReachedDatabase, reachDatabase } from "../database/reach-database.js";
import { loadMigrateConfig } from "../env.js";
import { logFormat } from "../observe/log-format.js";
import { failureLine, oneLine } from "./failure.js";

/** Exit codes of `migrate --check`, as diff's: the same, different, trouble. */
const UP_TO_DATE = 0;
const PENDING = 1;
const CANNOT_TELL = 2;

/**
 * `node dist/main.js migrate`: applies the pending migrations to the configured database (the
 * PostgreSQL of DATABASE_URL, waited for, or the embedded one) with the runner and lock the
 * server's start uses; resolves with the exit code, 0 once none is pending, 1 on a failure. With
 * `check` it applies nothing and resolves 0 when none is pending, 1 when some are, 2 when it
 * cannot tell.
 */
export async function runMigrateCommand(options: { readonly check: boolean }): Promise<number> {
  const failed = options.check ? CANNOT_TELL : 1;
  let database: ReachedDatabase | undefined;
  try {
    const config = loadMigrateConfig();
    const logger = pino(logFormat(config.logLevel));
    database = await reachDatabase(config, logger);
    if (!options.check) {
      await applyPendingMigrations(database.url, logger);
      return 0;
    }
    const pending = await listPendingMigrations(database.url);
    if (pending.length === 0) {
      logger.info("database schema up to date");
      return UP_TO_DATE;
    }
    logger.warn({ pending }, "migrations pending");
    return PENDING;
  } catch (error) {
    // The runner applies all pending migrations in one transaction: a failure rolls back the lot.
    const line =
      failureLine(error) ??
      `folio: migrate failed${options.check ? "" : ", nothing applied"}: ${oneLine(error instanceof Error ? error.message : String(error))}`;
    process.stderr.write(`${line}\n`);
    return failed;
  } finally {
    await database?.stop();
  }
}
