import pg from "pg";
import { ApiError } from "./api-error.ts";

/**
 * The `pg` pool of a baseline service, set up as Folio's (`@folio/db` createDb): the same size, the
 * same wait for a connection (10 s), the same session timeouts sent in the startup packet
 * (statement 5 s, lock 2 s, idle in transaction 10 s) and TCP keep-alive.
 */
export function createPool(url: string, size: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    connectionTimeoutMillis: 10_000,
    statement_timeout: 5_000,
    lock_timeout: 2_000,
    idle_in_transaction_session_timeout: 10_000,
    query_timeout: 6_000,
    keepAlive: true,
  });
  // An idle connection the server drops must not end the process.
  pool.on("error", () => undefined);
  return pool;
}

const RETRY_AFTER_SECONDS = "2";

/**
 * A query's failure as the client sees it: the database out of reach or past a timeout is 503
 * `unavailable` with Retry-After (Folio's mapping), anything else is not the client's business.
 */
export function databaseFailure(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  let reason: string | undefined;
  if (code === "55P03") reason = "lock-timeout";
  else if (code === "57014" || /Query read timeout/i.test(message)) reason = "statement-timeout";
  else if (/timeout exceeded when trying to connect/i.test(message)) reason = "pool-timeout";
  else if (
    (typeof code === "string" &&
      (code.startsWith("08") ||
        ["57P01", "57P02", "57P03", "53300", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(
          code,
        ))) ||
    /Connection terminated|connection is closed|terminating connection/i.test(message)
  ) {
    reason = "unreachable";
  }
  if (reason === undefined) return undefined;
  return new ApiError(
    "unavailable",
    `the database is unavailable (${reason}); retry in ${RETRY_AFTER_SECONDS}s`,
    [],
    { "retry-after": RETRY_AFTER_SECONDS },
  );
}
