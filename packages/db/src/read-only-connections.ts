import type pg from "pg";
import { isReadOnlySqlState } from "./database-errors.js";

/**
 * Drops from `pool` every connection on which a write failed as read-only (SQLSTATE 25006), when it
 * is released: it reached a standby or a demoted primary through a stale route, and the next query
 * must open a new connection, which finds the primary once the route does. The pool's other
 * connections were opened by the same route: each is dropped too when it is next released. Queries outside a
 * transaction are dropped by pg-pool itself (it discards a connection released with an error);
 * this covers transactions, which Prisma releases without one.
 */
export function dropReadOnlyConnections(pool: pg.Pool): void {
  const readOnly = new WeakSet<pg.PoolClient>();
  const open = new Set<pg.PoolClient>();
  pool.on("connect", (client) => {
    open.add(client);
    // Every ErrorResponse of the server passes here, whichever query API sent the statement.
    const connection = (client as unknown as { connection?: NodeJS.EventEmitter }).connection;
    connection?.on("errorMessage", (message: { code?: string }) => {
      if (!isReadOnlySqlState(message.code)) return;
      // The pool's other connections came by the same route: each is replaced once it is released.
      for (const other of open) readOnly.add(other);
    });
  });
  pool.on("remove", (client) => open.delete(client));
  pool.on("release", (_error, client) => {
    // pg-pool emits "release" before deciding to keep the client, and removes one that is ending.
    if (readOnly.has(client)) void client.end().catch(() => undefined);
  });
}

/**
 * True when a new connection of `pool` can write: `transaction_read_only` is off (a standby, or a
 * server with default_transaction_read_only, answers on). A read-only connection is not kept.
 * Rejects when the database cannot be reached.
 */
export async function canWrite(pool: pg.Pool): Promise<boolean> {
  const client = await pool.connect();
  // A checked-out client whose server goes away emits "error"; unheard, it would end the process
  // (the query rejects as well, which is what the caller sees).
  const ignore = () => undefined;
  client.on("error", ignore);
  let writable = false;
  try {
    const { rows } = await client.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
    writable = rows[0]?.transaction_read_only === "off";
    return writable;
  } finally {
    // Released with an error, a connection is closed: the next check connects anew.
    client.release(!writable);
    client.removeListener("error", ignore);
  }
}
