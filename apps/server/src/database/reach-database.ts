import { join } from "node:path";
import type { Logger } from "pino";
import { DATA_DIR } from "../config/server.js";
import { StartupError } from "../config/variables.js";
import type { MigrateConfig } from "../env.js";
import { waitForDatabase } from "./wait-for-database.js";

/** The configured database, accepting connections. */
export interface ReachedDatabase {
  readonly url: string;
  /** Set when it is the embedded database, which this process runs (and stops). */
  readonly embedded: { readonly poolSize: number; stop(): Promise<void> } | undefined;
  /** Stops the embedded database, if this process runs one. */
  stop(): Promise<void>;
}

/**
 * The database of the configuration, ready for connections: the PostgreSQL of DATABASE_URL once it
 * answers (waited for, see {@link waitForDatabase}), or the embedded one, started in DATA_DIR.
 */
export async function reachDatabase(
  config: Pick<MigrateConfig, "databaseUrl" | "databaseStartTimeoutMs" | "dataDir">,
  logger: Logger,
): Promise<ReachedDatabase> {
  if (config.databaseUrl !== undefined) {
    await waitForDatabase(config.databaseUrl, { timeoutMs: config.databaseStartTimeoutMs, logger });
    return { url: config.databaseUrl, embedded: undefined, stop: async () => undefined };
  }
  // Loaded only when used: PGlite is a large module the server does not need with DATABASE_URL.
  const { EMBEDDED_POOL_SIZE, startEmbeddedPostgres } = await import("@folio/embedded-postgres");
  const dataDir = join(config.dataDir, "postgres");
  const embedded = await startEmbeddedPostgres({ dataDir }).catch((error: unknown) => {
    throw new StartupError(
      DATA_DIR.name,
      `cannot hold the embedded database (${dataDir}): ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  logger.info({ dataDir: embedded.dataDir }, "using the embedded PostgreSQL");
  return {
    url: embedded.url,
    embedded: { poolSize: EMBEDDED_POOL_SIZE, stop: () => embedded.stop() },
    stop: () => embedded.stop(),
  };
}
