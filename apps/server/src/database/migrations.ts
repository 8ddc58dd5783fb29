import { applyMigrations, pendingMigrations } from "@folio/db";
import pg from "pg";
import type { Logger } from "pino";

/**
 * Applies the pending migrations with @folio/db's runner (all in one transaction, under Prisma's
 * advisory lock: of several processes at once, one applies them and the others wait, then find
 * nothing to do), logging each; resolves with the names applied.
 */
export async function applyPendingMigrations(url: string, logger: Logger): Promise<string[]> {
  const { applied } = await applyMigrations(url, { log: (message) => logger.info(message) });
  logger.info({ applied }, applied.length > 0 ? "migrations applied" : "database schema up to date");
  return applied;
}

/** The names of the migrations the database of `url` has not applied: one query, nothing written. */
export async function listPendingMigrations(url: string): Promise<string[]> {
  // One connection, closed at once: on the embedded database every connection shares one session.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await pendingMigrations(client);
  } finally {
    await client.end();
  }
}
