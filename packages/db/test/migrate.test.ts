import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { applyMigrations, migrationsDir, pendingMigrations } from "../src/index.js";

const run = promisify(execFile);

let database: TestDatabase;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "folio-db-migrations-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true, maxRetries: 5 });
});

beforeEach(async () => {
  database = await createTestDatabase();
});

afterEach(async () => {
  await database.drop();
});

/** Runs one query on its own connection, closed before returning. */
async function query<Row extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A migrations directory made of `{ name: sql }`, in a fresh temporary folder. */
async function writeMigrations(migrations: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(join(scratch, "migrations-"));
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(join(directory, name));
    await writeFile(join(directory, name, "migration.sql"), sql);
  }
  return directory;
}

async function tableExists(name: string): Promise<boolean> {
  const [row] = await query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [name]);
  return row?.found ?? false;
}

const silent = () => {};

describe("applyMigrations", () => {
  it("applies the package's migrations, and a second run applies nothing", async () => {
    const first = await applyMigrations(database.url, { log: silent });
    expect(first.applied).toContain("20261123093000_init");

    const second = await applyMigrations(database.url, { log: silent });
    expect(second.applied).toEqual([]);
  });

  it("creates snake_case tables with uuid and timestamptz columns", async () => {
    await applyMigrations(database.url, { log: silent });
    const columns = await query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name IN ('folders', 'projects')
        ORDER BY table_name, ordinal_position`,
    );
    const describe = (table: string) =>
      Object.fromEntries(
        columns
          .filter((column) => column.table_name === table)
          .map((column) => [
            column.column_name,
            `${column.data_type}${column.is_nullable === "YES" ? " null" : ""}`,
          ]),
      );
    expect(describe("folders")).toEqual({
      id: "uuid",
      org_id: "uuid",
      name: "text",
      parent_id: "uuid null",
      color: "text null",
      visibility: "text",
      created_by_user_id: "uuid",
      created_at: "timestamp with time zone",
      name_key: "text",
    });
    expect(describe("projects")).toEqual({
      id: "uuid",
      org_id: "uuid",
      name: "text",
      street: "text null",
      house_number: "text null",
      postal_code: "text null",
      city: "text null",
      country: "text null",
      created_at: "timestamp with time zone",
    });

    const indexes = await query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes
        WHERE schemaname = 'public' AND tablename IN ('folders', 'projects') ORDER BY indexname`,
    );
    expect(indexes.map((index) => index.indexname)).toEqual([
      "folders_org_id_id_key",
      "folders_org_id_parent_id_name_id_idx",
      "folders_org_id_parent_id_name_key_key",
      "folders_org_id_top_level_name_key_key",
      "folders_pkey",
      "projects_org_id_name_id_idx",
      "projects_pkey",
    ]);
    expect(indexes.find((index) => index.indexname === "projects_org_id_name_id_idx")?.indexdef).toContain(
      "(org_id, name, id)",
    );
    expect(
      indexes.find((index) => index.indexname === "folders_org_id_parent_id_name_id_idx")?.indexdef,
    ).toContain("(org_id, parent_id, name, id)");

    const foreignKeys = await query<{ conname: string; definition: string }>(
      `SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
        WHERE conrelid = 'folders'::regclass AND contype = 'f'`,
    );
    expect(foreignKeys).toEqual([
      {
        conname: "folders_org_id_parent_id_fkey",
        definition:
          "FOREIGN KEY (org_id, parent_id) REFERENCES folders(org_id, id) ON UPDATE CASCADE ON DELETE RESTRICT",
      },
    ]);
  });

  it("records each migration in _prisma_migrations as Prisma does", async () => {
    await applyMigrations(database.url, { log: silent });
    const columns = await query<{
      column_name: string;
      data_type: string;
      character_maximum_length: number | null;
    }>(
      `SELECT column_name, data_type, character_maximum_length FROM information_schema.columns
        WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => [c.column_name, c.data_type, c.character_maximum_length])).toEqual([
      ["id", "character varying", 36],
      ["checksum", "character varying", 64],
      ["finished_at", "timestamp with time zone", null],
      ["migration_name", "character varying", 255],
      ["logs", "text", null],
      ["rolled_back_at", "timestamp with time zone", null],
      ["started_at", "timestamp with time zone", null],
      ["applied_steps_count", "integer", null],
    ]);

    const [row] = await query<{ checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      `SELECT checksum, finished_at, applied_steps_count FROM _prisma_migrations WHERE migration_name = $1`,
      ["20261123093000_init"],
    );
    const file = await readFile(join(migrationsDir, "20261123093000_init", "migration.sql"));
    expect(row?.checksum).toBe(createHash("sha256").update(file).digest("hex"));
    expect(row?.finished_at).toBeInstanceOf(Date);
    expect(row?.applied_steps_count).toBe(1);
  });

  it("applies directories in name order", async () => {
    const directory = await writeMigrations({
      "20260102000000_second": "ALTER TABLE ordered ADD COLUMN b int;",
      "20260101000000_first": "CREATE TABLE ordered (a int);",
    });
    const { applied } = await applyMigrations(database.url, { migrationsDir: directory, log: silent });
    expect(applied).toEqual(["20260101000000_first", "20260102000000_second"]);
  });

  it("leaves nothing applied when a migration fails, and names it", async () => {
    const directory = await writeMigrations({
      "20260101000000_good": "CREATE TABLE good (id int);",
      "20260102000000_bad": "CREATE TABLE half (id int);\nSELEC broken;",
    });
    await expect(applyMigrations(database.url, { migrationsDir: directory, log: silent })).rejects.toThrow(
      /migration 20260102000000_bad failed/,
    );
    expect(await tableExists("good")).toBe(false);
    expect(await tableExists("half")).toBe(false);
    expect(await tableExists("_prisma_migrations")).toBe(false);
  });

  it("refuses to start when an applied migration's file has changed", async () => {
    const directory = await writeMigrations({ "20260101000000_notes": "CREATE TABLE notes (id int);" });
    await applyMigrations(database.url, { migrationsDir: directory, log: silent });
    await writeFile(
      join(directory, "20260101000000_notes", "migration.sql"),
      "CREATE TABLE notes (id bigint);",
    );

    await expect(applyMigrations(database.url, { migrationsDir: directory, log: silent })).rejects.toThrow(
      /migration 20260101000000_notes was changed after it was applied/,
    );
  });

  it("warns about a migration applied to the database but missing on disk", async () => {
    const directory = await writeMigrations({
      "20260101000000_kept": "CREATE TABLE kept (id int);",
      "20260102000000_removed": "CREATE TABLE removed (id int);",
    });
    await applyMigrations(database.url, { migrationsDir: directory, log: silent });
    await rm(join(directory, "20260102000000_removed"), { recursive: true });

    const messages: string[] = [];
    const { applied } = await applyMigrations(database.url, {
      migrationsDir: directory,
      log: (message) => messages.push(message),
    });
    expect(applied).toEqual([]);
    expect(messages).toEqual([expect.stringMatching(/warning: migration 20260102000000_removed .*missing/)]);
  });

  it("lets exactly one of two processes starting at once apply the migrations", async () => {
    const fixture = fileURLToPath(new URL("./fixtures/apply-migrations.mjs", import.meta.url));
    if (!existsSync(fileURLToPath(new URL("../dist/index.js", import.meta.url)))) {
      throw new Error("this test runs the built package: run `pnpm --filter @folio/db build` first");
    }
    // The sleep keeps the first transaction open while the second process arrives.
    const directory = await writeMigrations({
      "20260101000000_slow": "CREATE TABLE raced (id int);\nSELECT pg_sleep(1);",
      "20260102000000_after": "INSERT INTO raced (id) VALUES (1);",
    });

    const results = await Promise.all(
      [1, 2].map(() => run(process.execPath, [fixture, database.url, directory], { timeout: 30_000 })),
    );
    const appliedByEach = results.map(({ stdout }) => JSON.parse(stdout) as string[]);
    expect(appliedByEach.flat().sort()).toEqual(["20260101000000_slow", "20260102000000_after"].sort());
    expect(appliedByEach.filter((applied) => applied.length > 0)).toHaveLength(1);

    const rows = await query<{ migration_name: string; count: string }>(
      "SELECT migration_name, count(*) FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name",
    );
    expect(rows).toEqual([
      { migration_name: "20260101000000_slow", count: "1" },
      { migration_name: "20260102000000_after", count: "1" },
    ]);
    expect(await query("SELECT id FROM raced")).toEqual([{ id: 1 }]);
  });
});

describe("pendingMigrations", () => {
  it("names every migration of an empty database, then none once they are applied, then a new one", async () => {
    const directory = await writeMigrations({ "20260101000000_first": "CREATE TABLE first (a int);" });
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      expect(await pendingMigrations(pool, directory)).toEqual(["20260101000000_first"]);
      await applyMigrations(database.url, { migrationsDir: directory, log: silent });
      expect(await pendingMigrations(pool, directory)).toEqual([]);
      await mkdir(join(directory, "20260102000000_second"));
      await writeFile(
        join(directory, "20260102000000_second", "migration.sql"),
        "CREATE TABLE second (a int);",
      );
      expect(await pendingMigrations(pool, directory)).toEqual(["20260102000000_second"]);
    } finally {
      await pool.end();
    }
  });

  it("rejects when the database cannot be queried", async () => {
    const pool = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/postgres", max: 1 });
    try {
      await expect(pendingMigrations(pool)).rejects.toThrow();
    } finally {
      await pool.end();
    }
  });
});

// Behind PgBouncer the request timeouts are the database's or role's own settings (see
// docs/operations.md); migrations must run whatever they are.
describe.skipIf(!process.env.DATABASE_URL)(
  "applyMigrations on a database with short default timeouts",
  () => {
    it("is neither cut short by statement_timeout nor gives up waiting for another process by lock_timeout", async () => {
      const name = new URL(database.url).pathname.slice(1);
      await query(`ALTER DATABASE ${name} SET statement_timeout = 100`);
      await query(`ALTER DATABASE ${name} SET lock_timeout = 100`);
      const fixture = fileURLToPath(new URL("./fixtures/apply-migrations.mjs", import.meta.url));
      const directory = await writeMigrations({
        "20260101000000_slow": "CREATE TABLE raced (id int);\nSELECT pg_sleep(0.5);",
      });
      // The second process waits at the advisory lock for longer than lock_timeout.
      const results = await Promise.all(
        [1, 2].map(() => run(process.execPath, [fixture, database.url, directory], { timeout: 30_000 })),
      );
      expect(results.flatMap(({ stdout }) => JSON.parse(stdout) as string[])).toEqual([
        "20260101000000_slow",
      ]);
    });
  },
);
