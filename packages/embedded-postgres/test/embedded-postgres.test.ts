import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDED_POOL_SIZE, type EmbeddedPostgres, startEmbeddedPostgres } from "../src/index.js";

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "folio-embedded-postgres-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true, maxRetries: 5 });
});

/**
 * Runs `use` with a pool of the size the package advises on `server`, ending the pool before
 * returning (stop() cuts connections).
 */
async function withPool<T>(server: EmbeddedPostgres, use: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: server.url, max: EMBEDDED_POOL_SIZE });
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

  it("runs transactions of many concurrent callers through a pool of the advised size, each whole", async () => {
    /** Caller n moves n from one of five accounts to the next. */
    const accountsOf = (caller: number) => ({ from: (caller % 5) + 1, to: ((caller + 1) % 5) + 1 });
    const server = await startEmbeddedPostgres();
    try {
      await withPool(server, async (pool) => {
        await pool.query("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)");
        await pool.query("INSERT INTO accounts (id, balance) SELECT n, 100 FROM generate_series(1, 5) AS n");
        await pool.query("CREATE TABLE transfers (caller int NOT NULL, amount int NOT NULL)");

        // 40 callers at once, each moving money between two accounts in a transaction of
        // several parameterised statements; every fifth one fails halfway and rolls back.
        const callers = Array.from({ length: 40 }, async (_, caller) => {
          const client = await pool.connect();
          try {
            await client.query("BEGIN");
            const { from, to } = accountsOf(caller);
            await client.query("UPDATE accounts SET balance = balance - $1 WHERE id = $2", [caller, from]);
            if (caller % 5 === 4) await client.query("SELECT 1 / 0");
            await client.query("UPDATE accounts SET balance = balance + $1 WHERE id = $2", [caller, to]);
            await client.query("INSERT INTO transfers (caller, amount) VALUES ($1, $2)", [caller, caller]);
            const { rows } = await client.query<{ count: number }>(
              "SELECT count(*)::int AS count FROM transfers WHERE caller = $1",
              [caller],
            );
            await client.query("COMMIT");
            return rows[0]?.count;
          } catch (error) {
            await client.query("ROLLBACK");
            return (error as Error).message;
          } finally {
            client.release();
          }
        });
        const outcomes = await Promise.all(callers);

        const expected = Array.from({ length: 40 }, (_, caller) =>
          caller % 5 === 4 ? "division by zero" : 1,
        );
        expect(outcomes).toEqual(expected);
        const { rows: transfers } = await pool.query<{ caller: number }>(
          "SELECT caller FROM transfers ORDER BY caller",
        );
        expect(transfers.map((row) => row.caller)).toEqual(
          Array.from({ length: 40 }, (_, caller) => caller).filter((caller) => caller % 5 !== 4),
        );
        // Money moved only by committed transfers, and none was lost.
        const { rows: accounts } = await pool.query<{ id: number; balance: number }>(
          "SELECT id, balance FROM accounts ORDER BY id",
        );
        expect(accounts.reduce((sum, account) => sum + account.balance, 0)).toBe(500);
        const balanceOf = (id: number) =>
          transfers.reduce((balance, { caller }) => {
            const { from, to } = accountsOf(caller);
            return balance + (to === id ? caller : 0) - (from === id ? caller : 0);
          }, 100);
        expect(accounts).toEqual([1, 2, 3, 4, 5].map((id) => ({ id, balance: balanceOf(id) })));
      });
    } finally {
      await server.stop();
    }
  });

  it("answers concurrent parameterised queries of many callers through a pool of the advised size", async () => {
    const server = await startEmbeddedPostgres();
    try {
      await withPool(server, async (pool) => {
        await pool.query("CREATE TABLE hits (n int NOT NULL, label text NOT NULL)");
        // Statements of different shapes (parameter counts) at once: the case that interleaved
        // when several connections shared PGlite's session.
        await Promise.all(
          Array.from({ length: 100 }, (_, n) =>
            n % 2 === 0
              ? pool.query("INSERT INTO hits (n, label) VALUES ($1, $2)", [n, `even ${n}`])
              : pool.query("INSERT INTO hits (n, label) SELECT $1::int, 'odd ' || $1::text", [n]),
          ),
        );
        const { rows } = await pool.query<{ n: number; label: string }>(
          "SELECT n, label FROM hits ORDER BY n",
        );
        expect(rows).toEqual(
          Array.from({ length: 100 }, (_, n) => ({ n, label: `${n % 2 === 0 ? "even" : "odd"} ${n}` })),
        );
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
