import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../src/index.js";

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "folio-embedded-postgres-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs `use` with a pool on `server`, ending the pool before returning (stop() cuts connections). */
async function withPool<T>(
  server: EmbeddedPostgres,
  use: (pool: pg.Pool) => Promise<T>,
  max = 10,
): Promise<T> {
  const pool = new pg.Pool({ connectionString: server.url, max });
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}

describe("startEmbeddedPostgres", () => {
  it("serves a loopback postgres:// URL on a free port", async () => {
    const server = await startEmbeddedPostgres();
    try {
      expect(server.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      expect(server.dataDir).toBeUndefined();
      const { rows } = await withPool(server, (pool) => pool.query("SELECT 1 + 1 AS two"));
      expect(rows).toEqual([{ two: 2 }]);
    } finally {
      await server.stop();
    }
  });

  it("keeps rows in dataDir across stop() and a restart", async () => {
    const dataDir = join(scratch, "restart", "data");
    const first = await startEmbeddedPostgres({ dataDir });
    expect(first.dataDir).toBe(dataDir);
    await withPool(first, async (pool) => {
      await pool.query(
        "CREATE TABLE notes (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), body text NOT NULL)",
      );
      await pool.query("INSERT INTO notes (body) VALUES ($1)", ["kept"]);
    });
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir });
    try {
      const { rows } = await withPool(second, (pool) => pool.query("SELECT body FROM notes"));
      expect(rows).toEqual([{ body: "kept" }]);
    } finally {
      await second.stop();
    }
  });

  it("answers concurrent queries over a pool of 10 connections", async () => {
    const server = await startEmbeddedPostgres();
    try {
      await withPool(server, async (pool) => {
        await pool.query("CREATE TABLE hits (n int NOT NULL)");
        await Promise.all(
          Array.from({ length: 100 }, (_, n) => pool.query("INSERT INTO hits (n) VALUES ($1)", [n])),
        );
        // All 10 connections are opened and held at once.
        const clients = await Promise.all(Array.from({ length: 10 }, () => pool.connect()));
        const counts = await Promise.all(
          clients.map((client) => client.query<{ count: string }>("SELECT count(*) FROM hits")),
        );
        for (const client of clients) client.release();
        expect(counts.map((result) => result.rows[0]?.count)).toEqual(Array(10).fill("100"));
      });
    } finally {
      await server.stop();
    }
  });

  it("runs two instances side by side on different ports", async () => {
    const [one, two] = await Promise.all([startEmbeddedPostgres(), startEmbeddedPostgres()]);
    try {
      expect(one.url).not.toBe(two.url);
      await withPool(one, (pool) => pool.query("CREATE TABLE only_in_one (id int)"));
      const tables = (server: EmbeddedPostgres) =>
        withPool(server, async (pool) => {
          const { rows } = await pool.query<{ table_name: string }>(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
          );
          return rows.map((row) => row.table_name);
        });
      expect(await tables(one)).toEqual(["only_in_one"]);
      expect(await tables(two)).toEqual([]);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  });

  it("creates a missing dataDir, parents included", async () => {
    const dataDir = join(scratch, "a", "b", "c");
    const server = await startEmbeddedPostgres({ dataDir });
    await server.stop();
    const again = await startEmbeddedPostgres({ dataDir });
    await again.stop();
  });
});
