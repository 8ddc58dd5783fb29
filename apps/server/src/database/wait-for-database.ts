import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { Logger } from "pino";
import { DATABASE_START_TIMEOUT_MS, DATABASE_URL } from "../config/database.js";
import { redactUrl } from "../config/redact-url.js";
import { StartupError } from "../config/variables.js";

/** The pause after the first failed attempt; each next one doubles, up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 5_000;
/**
 * The longest one attempt waits for its connection: a host that drops packets would otherwise
 * hold it for the kernel's SYN retries, minutes.
 */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Options of {@link waitForDatabase}. */
export interface WaitOptions {
  /** How long to keep trying (DATABASE_START_TIMEOUT_MS); 0: one attempt. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/**
 * Resolves once the PostgreSQL of `url` accepts a connection and answers a query, retrying with
 * back-off (each failure logged at warn) for up to `timeoutMs`. Rejects with a StartupError naming
 * DATABASE_URL, without its password, past that; at once when the database refuses the login or
 * has no such database, which waiting would not change.
 */
export async function waitForDatabase(url: string, options: WaitOptions): Promise<void> {
  const shown = redactUrl(url);
  const deadline = Date.now() + options.timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - Date.now();
    try {
      await tryConnect(url, Math.max(1_000, Math.min(ATTEMPT_TIMEOUT_MS, remaining)));
      if (attempt > 1) options.logger.info({ database: shown, attempts: attempt }, "database reachable");
      return;
    } catch (error) {
      const reason = describe(error);
      if (!mayPass(error)) {
        throw new StartupError(DATABASE_URL.name, `(${shown}) refused the connection: ${reason}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new StartupError(
          DATABASE_URL.name,
          `(${shown}) could not be reached in ${attempt} attempt${attempt === 1 ? "" : "s"} within ${options.timeoutMs} ms (${DATABASE_START_TIMEOUT_MS.name}): ${reason}`,
        );
      }
      const pauseMs = Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), MAX_PAUSE_MS, left);
      options.logger.warn(
        { database: shown, attempt, retryInMs: pauseMs, reason },
        "database not reachable yet: waiting for it",
      );
      await sleep(pauseMs);
    }
  }
}

/** Connects once and runs `SELECT 1`, giving up after `timeoutMs`. */
async function tryConnect(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // An error after connecting (the server going away at once) is reported by the query.
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Whether waiting may help: a network failure, or PostgreSQL saying it cannot take connections
 * now (starting up, shutting down, too many connections). A refused login (class 28) or a missing
 * database (3D000) stays so.
 */
function mayPass(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return true;
  return /^(08|53|57P)/.test(error.code ?? "");
}

/** An error's message on one line; an AggregateError (every address of a name refused) lists each. */
function describe(error: unknown): string {
  const errors = error instanceof AggregateError ? error.errors : [error];
  return errors
    .map((each: unknown) =>
      each instanceof Error ? each.message || (each as { code?: string }).code : String(each),
    )
    .join("; ")
    .replace(/\s+/g, " ");
}
