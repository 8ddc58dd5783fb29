import type pg from "pg";
import { sendCancelRequest } from "./cancel-request.js";
import { settlesWithin } from "./settles-within.js";

/** What closing a pool did to the work still running on it. */
export interface PoolCloseReport {
  /** Connections in use when the close began: the statement each ran was asked to cancel. */
  readonly cancelled: number;
  /** Connections still in use at the deadline, closed from this side. */
  readonly cut: number;
}

/**
 * Follows which connections of `pool` are in use, from now on, and returns how to close it within
 * `timeoutMs`: no connection is handed out any more, the statements of those in use are
 * cancelled, and those still not given back at the deadline are closed from this side. `pg`'s
 * own `pool.end()` waits for every connection in use to be given back, that is for its statement,
 * however long the database makes it wait (a lock, with no `statement_timeout`).
 *
 * Cancelling is PostgreSQL's CancelRequest, sent with each connection's own key, rather than
 * `pg_cancel_backend(pid)` from a connection of our own: behind PgBouncer in transaction mode the
 * process id a client is told is PgBouncer's, not its server's (so `pg_cancel_backend` would miss,
 * or hit another client's backend), while PgBouncer forwards a CancelRequest to the server
 * connection that runs the client's statement; and it needs no privilege, nor a free connection
 * slot. Cancelling, not only closing, because PostgreSQL does not notice a closed client while a
 * statement waits: a create waiting for a lock would still insert, and commit, once it got it.
 * Closing at the deadline is for a cancel that cannot arrive (a cut network).
 */
export function poolCloser(pool: pg.Pool): (timeoutMs: number) => Promise<PoolCloseReport> {
  const inUse = new Set<pg.PoolClient>();
  pool.on("acquire", (client) => inUse.add(client));
  pool.on("release", (_error, client) => inUse.delete(client));
  let closing: Promise<PoolCloseReport> | undefined;
  return (timeoutMs) => {
    closing ??= close(pool, inUse, timeoutMs);
    return closing;
  };
}

async function close(pool: pg.Pool, inUse: Set<pg.PoolClient>, timeoutMs: number): Promise<PoolCloseReport> {
  // Idle connections close now; the others once given back.
  const ended = pool.end();
  const busy = [...inUse];
  const cancels = busy.map((client) => sendCancelRequest(client, timeoutMs));
  let cut = 0;
  if (!(await settlesWithin(ended, timeoutMs))) {
    for (const client of inUse) {
      cut += 1;
      // With a statement running, pg destroys the socket: the statement's caller fails at once and
      // gives the connection back, and the pool drops it.
      void client.end().catch(() => undefined);
    }
  }
  // Each within the deadline: a cancel's connection is left to its server to close (see
  // sendCancelRequest), and the embedded one never does.
  await Promise.all(cancels);
  return { cancelled: busy.length, cut };
}
