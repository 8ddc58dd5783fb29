import { describe, expect, it } from "vitest";
import { databaseEdge } from "../src/database-edge.js";
import { DatabaseUnavailableError } from "../src/database-errors.js";
import type { Prisma } from "../src/gen/prisma/client.js";
import type { SqlRunner } from "../src/sql-runner.js";
import { table } from "../src/tables.js";
import { writeSlots } from "../src/write-slots.js";

const sql = {} as SqlRunner;
const client = {} as Prisma.TransactionClient;

/** Tables whose queries fail as given, and the edge over them as createDb composes it. */
function edgeOver(failure: () => unknown) {
  const reasons: string[] = [];
  const tables = {
    folders: table({
      queries: () => ({ create: async () => Promise.reject(failure()) }),
      writes: ["create"],
    }),
    projects: table({ queries: () => ({ page: async () => Promise.reject(new Error("bug")) }) }),
  };
  const edge = databaseEdge(tables, (reason) => reasons.push(reason));
  const db = edge.onPool(sql, client, { asWrite: writeSlots(1, 1_000) });
  const transaction = <T>(work: (tx: typeof db) => Promise<T>) =>
    work(edge.inTransaction(sql, client)).catch(edge.transactionFailed);
  return { db, transaction, reasons };
}

describe("databaseEdge", () => {
  it("tells each failed query's reason once, also inside a transaction, and not the service's own errors", async () => {
    const { db, transaction, reasons } = edgeOver(() => new DatabaseUnavailableError("lock", "lock-timeout"));
    await expect(db.folders.create()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(db.projects.page()).rejects.toThrow("bug");
    // Told by the query inside, not again by the transaction it fails.
    await expect(transaction((tx) => tx.folders.create())).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(
      transaction(async () => {
        throw new Error("refused by the service");
      }),
    ).rejects.toThrow("refused");
    expect(reasons).toEqual(["lock-timeout", "other", "lock-timeout"]);
  });

  it("maps a driver's failure the same on the pool and in a transaction", async () => {
    const lockTimeout = () =>
      Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" });
    const { db, transaction, reasons } = edgeOver(lockTimeout);
    await expect(db.folders.create()).rejects.toMatchObject({ reason: "lock-timeout" });
    await expect(transaction((tx) => tx.folders.create())).rejects.toMatchObject({ reason: "lock-timeout" });
    expect(reasons).toEqual(["lock-timeout", "lock-timeout"]);
  });

  it("tells a transaction's own failure, such as no write slot in time", async () => {
    const reasons: string[] = [];
    const edge = databaseEdge({}, (reason, query) => reasons.push(`${query}: ${reason}`));
    const slotless = new DatabaseUnavailableError("no database connection was free in time", "pool-timeout");
    await expect(Promise.reject(slotless).catch(edge.transactionFailed)).rejects.toBe(slotless);
    expect(reasons).toEqual(["transaction: pool-timeout"]);
  });
});
