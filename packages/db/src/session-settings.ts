import pg from "pg";

/** The timeouts every connection of {@link createDb}'s pool asks PostgreSQL for (0: off). */
export interface SessionTimeouts {
  readonly statementTimeoutMs: number;
  readonly lockTimeoutMs: number;
  readonly idleInTransactionSessionTimeoutMs: number;
}

/** The session timeouts of createDb's options, with its defaults. */
export function sessionTimeouts(options: {
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
}): SessionTimeouts {
  const statementTimeoutMs = options.statementTimeoutMs ?? 5_000;
  return {
    statementTimeoutMs,
    lockTimeoutMs: options.lockTimeoutMs ?? 2_000,
    // A transaction left open by a request that stalled must not hold its locks for ever.
    idleInTransactionSessionTimeoutMs: Math.max(statementTimeoutMs * 2, 10_000),
  };
}

/** The timeouts as `pg` connection options: sent in each connection's startup packet. */
export function startupParameters(timeouts: SessionTimeouts): pg.ClientConfig {
  return {
    ...(timeouts.statementTimeoutMs > 0 ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
    ...(timeouts.lockTimeoutMs > 0 ? { lock_timeout: timeouts.lockTimeoutMs } : {}),
    idle_in_transaction_session_timeout: timeouts.idleInTransactionSessionTimeoutMs,
  };
}

/** A timeout a connection asked for and did not get. */
export interface TimeoutMismatch {
  /** The PostgreSQL setting, e.g. `statement_timeout`. */
  readonly setting: string;
  readonly askedMs: number;
  /** What the connection got (0: off). */
  readonly gotMs: number;
}

/**
 * Opens one connection to `url` as the pool does and reads back the timeouts it got. A connection
 * pooler in transaction mode (PgBouncer) drops startup parameters, so behind one the database's or
 * role's own settings (`ALTER ROLE ... SET statement_timeout`) are what queries run with; this tells
 * which asked-for timeouts do not hold. Timeouts asked to be off are not checked.
 */
export async function checkSessionTimeouts(
  url: string,
  timeouts: SessionTimeouts,
): Promise<TimeoutMismatch[]> {
  const client = new pg.Client({ connectionString: url, ...startupParameters(timeouts) });
  await client.connect();
  try {
    const asked: Record<string, number> = {
      statement_timeout: timeouts.statementTimeoutMs,
      lock_timeout: timeouts.lockTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionSessionTimeoutMs,
    };
    // pg_settings gives these in milliseconds, whatever unit they were set in.
    const { rows } = await client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])",
      [Object.keys(asked)],
    );
    return rows
      .map((row) => ({ setting: row.name, askedMs: asked[row.name] ?? 0, gotMs: Number(row.setting) }))
      .filter((row) => row.askedMs > 0 && row.gotMs !== row.askedMs);
  } finally {
    await client.end();
  }
}
