// Closing while statements wait for a lock that another session holds, with no statement or lock
// timeout to end them: the close cancels them in the database, and when a cancel cannot arrive
// (a cut network), it gives up on their connections at its deadline. PostgreSQL only: PGlite has
// one session for every connection, so no lock can make a connection wait there.
import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { startTcpProxy } from "@folio/test-support/tcp-proxy";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, createDb, type NewFolder } from "../src/index.js";

let database: TestDatabase;
let locker: pg.Client;

function newFolder(name: string): NewFolder {
  return {
    orgId: randomUUID(),
    name,
    nameKey: name.toLowerCase(),
    parentId: null,
    color: null,
    visibility: "private",
    createdByUserId: randomUUID(),
  };
}

/** Whether `work` succeeded, read once it settles (its failure is expected, not unhandled). */
function outcome(work: Promise<unknown>): Promise<"done" | "failed"> {
  return work.then(
    () => "done",
    () => "failed",
  );
}

/** Sessions of the database, other than the locker's, waiting for a lock. */
async function waitingForLocks(): Promise<number> {
  // The locker is in a transaction, which would otherwise see the activity of its first look.
  await locker.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await locker.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'",
  );
  return rows[0]?.n ?? 0;
}

describe.runIf(process.env.DATABASE_URL)("close, with statements waiting for a lock (PostgreSQL)", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    await applyMigrations(database.url, { log: () => {} });
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });

  afterEach(async () => {
    await locker.query("ROLLBACK");
  });

  afterAll(async () => {
    await locker?.end();
    await database?.drop();
  });

  it("cancels them in the database, on the pool and in transactions, without waiting for its deadline", async () => {
    const db = createDb(database.url, { poolSize: 4, statementTimeoutMs: 0, lockTimeoutMs: 0 });
    await locker.query("BEGIN; LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
    const onPool = outcome(db.folders.create(newFolder("On the pool")));
    const inTransaction = outcome(db.transaction((tx) => tx.folders.create(newFolder("In a transaction"))));
    await expect.poll(waitingForLocks).toBe(2);

    expect(await db.close({ timeoutMs: 60_000 })).toEqual({ cancelled: 2, cut: 0 });
    expect(await onPool).toBe("failed");
    expect(await inTransaction).toBe("failed");
    expect(await waitingForLocks()).toBe(0);
    // Nothing of them commits once the lock is released.
    await locker.query("COMMIT");
    expect((await locker.query("SELECT count(*)::int AS n FROM folders")).rows[0]?.n).toBe(0);
  });

  it("closes their connections at its deadline when the cancel cannot arrive", async () => {
    const url = new URL(database.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    const db = createDb(url.toString(), { poolSize: 2, statementTimeoutMs: 0, lockTimeoutMs: 0 });
    try {
      await locker.query("BEGIN; LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
      const create = outcome(db.folders.create(newFolder("Behind a cut network")));
      await expect.poll(waitingForLocks).toBe(1);
      proxy.cut();

      expect(await db.close({ timeoutMs: 300 })).toEqual({ cancelled: 1, cut: 1 });
      expect(await create).toBe("failed");
    } finally {
      await proxy.close();
    }
  });
});
