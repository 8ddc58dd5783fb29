import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Prisma } from "../src/gen/prisma/client.js";
import { preparedStatements } from "../src/prepared-statements.js";
import { sqlOnPool } from "../src/sql-runner.js";

let database: TestDatabase;
// A new connection each test (pg remembers what it prepared on one), and only one, so that what
// the runner prepared is what the next query on the pool sees.
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
});

beforeEach(async () => {
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  // The embedded database is one session that every connection shares: start from none there too.
  await pool.query("DEALLOCATE ALL");
});

afterEach(async () => {
  await pool.end();
});

afterAll(async () => {
  await database?.drop();
});

const statement = (n: number) => Prisma.sql`SELECT ${n}::int + 1 AS next, now() AS at`;

async function preparedOnConnection(): Promise<string[]> {
  const result = await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name");
  return result.rows.map((row) => row.name);
}

describe("statements prepared by name", () => {
  it("prepares each text once per connection, under a name that is a digest of the text", async () => {
    const prepared = preparedStatements(true);
    const sql = sqlOnPool(pool, prepared);
    const [first] = await sql.rows<{ next: number; at: Date }>("SELECT", statement(1));
    const [second] = await sql.rows<{ next: number; at: Date }>("SELECT", statement(41));
    expect([first?.next, second?.next]).toEqual([2, 42]);
    expect(second?.at).toBeInstanceOf(Date);
    const name = prepared.nameOf(statement(1).text);
    expect(name).toMatch(/^folio_[0-9a-f]{24}$/);
    // Another process names the same text the same way (behind a pooler, its statement is this one).
    expect(preparedStatements(true).nameOf(statement(7).text)).toBe(name);
    expect(await preparedOnConnection()).toEqual([name]);
  });

  it("prepares nothing when turned off", async () => {
    const sql = sqlOnPool(pool, preparedStatements(false));
    const [row] = await sql.rows<{ next: number }>("SELECT", statement(1));
    expect(row?.next).toBe(2);
    expect(await preparedOnConnection()).toEqual([]);
  });

  it("runs a statement again unnamed, and every later one, when the server lost what it prepared", async () => {
    // What a pooler in transaction mode does: the connection's next statement reaches a server
    // connection that never prepared it (SQLSTATE 26000).
    let told = 0;
    const prepared = preparedStatements(true, () => told++);
    const sql = sqlOnPool(pool, prepared);
    await sql.rows("SELECT", statement(1));
    await pool.query("DEALLOCATE ALL");
    const [row] = await sql.rows<{ next: number }>("SELECT", statement(2));
    expect(row?.next).toBe(3);
    expect(told).toBe(1);
    expect(prepared.nameOf(statement(1).text)).toBeUndefined();
    await sql.rows("SELECT", statement(3));
    expect(await preparedOnConnection()).toEqual([]);
    expect(told).toBe(1);
  });

  it("runs a statement unnamed when its name is already prepared on the server connection", async () => {
    // The other face of a pooler: the server connection already has the name (SQLSTATE 42P05).
    let told = 0;
    const prepared = preparedStatements(true, () => told++);
    const name = prepared.nameOf(statement(1).text);
    await pool.query(`PREPARE "${name}" AS SELECT 0`);
    const sql = sqlOnPool(pool, prepared);
    const [row] = await sql.rows<{ next: number }>("SELECT", statement(5));
    expect(row?.next).toBe(6);
    expect(told).toBe(1);
  });

  it("passes other failures through and stays on", async () => {
    const prepared = preparedStatements(true);
    const sql = sqlOnPool(pool, prepared);
    await expect(sql.rows("SELECT", Prisma.sql`SELECT 1 / ${0}::int`)).rejects.toMatchObject({
      code: "22012",
    });
    expect(prepared.nameOf(statement(1).text)).toBeDefined();
  });
});
