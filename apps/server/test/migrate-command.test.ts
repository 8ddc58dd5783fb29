// Migrations as a job before the rollout: `node dist/main.js migrate` applies them with the
// server's own runner (no Prisma CLI, no network), `migrate --check` tells whether any are
// pending, and a server started with MIGRATE_ON_START=false leaves them alone and is not ready
// until they are applied.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { removeTempDir } from "@folio/test-support/temp-dir";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startServerProcess } from "./server-process.js";
import { runServer } from "./server-run.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

/** The migrations recorded as applied in the database, by name. */
async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string | null }>(
      "SELECT to_regclass('_prisma_migrations')::text AS name",
    );
    if (rows[0]?.name === null) return [];
    const applied = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name`,
    );
    return applied.rows.map((row) => row.migration_name);
  } finally {
    await client.end();
  }
}

/** Runs `node dist/main.js migrate ...args` on the database of `url` to its end. */
async function migrate(url: string, ...args: string[]) {
  const run = runServer({ DATABASE_URL: url }, ["migrate", ...args]);
  return { code: await run.exited, lines: run.lines, stderr: run.stderr };
}

describe("node dist/main.js migrate", () => {
  it("applies the migrations to a fresh database and exits 0; --check exits 1 before and 0 after", async () => {
    const database = await freshDatabase();
    const before = await migrate(database.url, "--check");
    expect(before.code).toBe(1);
    expect(before.lines.find((line) => line.msg === "migrations pending")?.pending).toEqual(
      expect.arrayContaining([expect.stringMatching(/_init$/)]),
    );
    expect(await appliedMigrations(database.url)).toEqual([]);

    const applied = await migrate(database.url);
    expect(applied.code).toBe(0);
    const names = applied.lines.find((line) => line.msg === "migrations applied")?.applied as string[];
    expect(names.length).toBeGreaterThan(0);
    expect(await appliedMigrations(database.url)).toEqual(names);

    const after = await migrate(database.url, "--check");
    expect(after.code).toBe(0);
    expect(after.stderr).toEqual([]);
    // Once more: nothing left to apply.
    expect((await migrate(database.url)).code).toBe(0);
  });

  it("works on the embedded database of DATA_DIR when DATABASE_URL is unset", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "folio-migrate-"));
    cleanups.push(() => removeTempDir(dataDir));
    const run = async (...args: string[]) =>
      await runServer({ DATA_DIR: dataDir }, ["migrate", ...args]).exited;
    expect(await run()).toBe(0);
    expect(await run("--check")).toBe(0);
  });

  it("exits 2 with the usage on arguments it does not know", async () => {
    const run = runServer({}, ["migrate", "--dry-run"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr).toEqual([
      expect.stringMatching(/^folio: unknown arguments .*usage: node dist\/main\.js/),
    ]);
  });
});

describe("a server with MIGRATE_ON_START=false", () => {
  it("applies nothing, answers /readyz 503 while migrations are pending, and 200 once `migrate` applied them", async () => {
    const server = await startServerProcess({ MIGRATE_ON_START: "false" });
    cleanups.push(() => server.stop());
    expect(await appliedMigrations(server.database.url)).toEqual([]);
    const readyz = await fetch(`${server.baseUrl}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toEqual({ status: "not ready", reason: "migrations-pending" });

    expect((await migrate(server.database.url)).code).toBe(0);
    await expect.poll(async () => (await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  });
});
