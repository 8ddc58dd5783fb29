// Adding a table to @folio/db is one entry in one list (src/tables.ts): built from a list with
// one entry more (fixtures/tables-with-notes.ts), the database offers the new table's queries on
// the pool and in transactions, maps and tells their failures, and runs its writes in a slot.
import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDbOf } from "../src/create-db.js";
import { applyMigrations, DatabaseUnavailableError } from "../src/index.js";
import { TABLES } from "../src/tables.js";
import { CREATE_NOTES, TABLES_WITH_NOTES } from "./fixtures/tables-with-notes.js";

let database: TestDatabase;
const told: [string, string][] = [];
let db: ReturnType<typeof createDbOf<typeof TABLES_WITH_NOTES>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await applyMigrations(database.url, { log: () => {} });
  const setup = new pg.Client({ connectionString: database.url });
  await setup.connect();
  try {
    await setup.query(CREATE_NOTES);
    // Stands in for a lock wait that ran out (SQLSTATE 55P03), which the embedded database's one
    // session cannot produce: a note of this text is refused with it.
    await setup.query(`
      CREATE FUNCTION notes_locked_out() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.text = 'locked out' THEN
          RAISE EXCEPTION 'canceling statement due to lock timeout' USING ERRCODE = 'lock_not_available';
        END IF;
        RETURN NEW;
      END $$`);
    await setup.query(
      "CREATE TRIGGER notes_locked_out BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notes_locked_out()",
    );
  } finally {
    await setup.end();
  }
  db = createDbOf(TABLES_WITH_NOTES, database.url, {
    poolSize: database.poolSize,
    onQueryFailure: (reason, query) => told.push([reason, query]),
  });
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe("a table added to the list", () => {
  it("is the fixture's one difference from Folio's list", () => {
    expect(Object.keys(TABLES_WITH_NOTES)).toEqual([...Object.keys(TABLES), "notes"]);
  });

  it("offers its queries on the pool and in transactions, beside the other tables'", async () => {
    const orgId = randomUUID();
    await db.notes.add(orgId, "on the pool");
    await db.transaction((tx) => tx.notes.add(orgId, "in a transaction"));
    expect(await db.transaction((tx) => tx.notes.list(orgId))).toEqual(["in a transaction", "on the pool"]);
    expect(await db.projects.page({ orgId, limit: 1 })).toEqual([]);
  });

  it("maps and tells its failures once, on the pool and in a transaction", async () => {
    told.length = 0;
    const orgId = randomUUID();
    await expect(db.notes.add(orgId, "locked out")).rejects.toMatchObject({
      name: "DatabaseUnavailableError",
      reason: "lock-timeout",
    });
    await expect(db.transaction((tx) => tx.notes.add(orgId, "locked out"))).rejects.toBeInstanceOf(
      DatabaseUnavailableError,
    );
    // Not the database being unavailable (a unique index): told as `other`, passed on as it is.
    await db.notes.add(orgId, "once");
    const duplicate = await db.notes.add(orgId, "once").catch((error: unknown) => error);
    expect(duplicate).not.toBeInstanceOf(DatabaseUnavailableError);
    expect(told).toEqual([
      ["lock-timeout", "notes.add"],
      ["lock-timeout", "notes.add"],
      ["other", "notes.add"],
    ]);
  });

  it.runIf(process.env.DATABASE_URL)("runs its writes in a write slot: reads keep connections", async () => {
    // 4 connections, 3 write slots; 3 transactions hold the slots, one connection stays free.
    const small = createDbOf(TABLES_WITH_NOTES, database.url, { poolSize: 4, acquireTimeoutMs: 300 });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const holders = Array.from({ length: 3 }, () =>
      small.transaction(async (tx) => {
        await tx.notes.list(randomUUID());
        started++;
        await held;
      }),
    );
    try {
      while (started < 3) await new Promise((resolve) => setImmediate(resolve));
      const orgId = randomUUID();
      await expect(small.notes.add(orgId, "waits for a slot")).rejects.toMatchObject({
        reason: "pool-timeout",
      });
      expect(await small.notes.list(orgId)).toEqual([]);
    } finally {
      release();
      await Promise.all(holders);
      await small.close();
    }
  });
});
