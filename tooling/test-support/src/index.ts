/**
 * Throwaway databases for tests: a fresh database on the PostgreSQL server named by `DATABASE_URL`
 * when it is set (CI, or a developer's local server), an embedded PGlite otherwise, so the same
 * tests run on both without a server to install.
 */
import { randomBytes } from "node:crypto";
import { EMBEDDED_POOL_SIZE, startEmbeddedPostgres } from "@folio/embedded-postgres";
import pg from "pg";

/** An empty database, only for the test that created it. */
export interface TestDatabase {
  /** Connection string for `pg` or `@folio/db`'s `createDb()`. */
  url: string;
  /** `postgres`: a database created on `DATABASE_URL`'s server; `embedded`: a PGlite of its own. */
  kind: "postgres" | "embedded";
  /** Connections a client pool should open to it (the embedded database takes one). */
  poolSize: number;
  /** Drops the database (or stops the embedded server). End every client of `url` first. */
  drop(): Promise<void>;
}

/** Creates an empty database, with no migrations applied: callers apply those they need. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) return createDatabaseOnServer(serverUrl, "folio_test");

  const embedded = await startEmbeddedPostgres();
  return { url: embedded.url, kind: "embedded", poolSize: EMBEDDED_POOL_SIZE, drop: () => embedded.stop() };
}

/** Creates `<prefix>_<random>` on the PostgreSQL server of `serverUrl` (benchmarks use it too). */
export async function createDatabaseOnServer(
  serverUrl: string,
  prefix: string,
): Promise<TestDatabase & { readonly name: string }> {
  // A new database per call: tests in parallel never see each other's rows.
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await runOnServer(serverUrl, `CREATE DATABASE ${name}`);

  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropping: Promise<void> | undefined;
  return {
    name,
    url: url.toString(),
    kind: "postgres",
    poolSize: 10,
    drop() {
      dropping ??= dropWhenClosed(serverUrl, name);
      return dropping;
    },
  };
}

/** How long a drop waits for the connections of pools just ended to close. */
const CLOSING_WAIT_MS = 5_000;

/**
 * Drops a database once its connections have closed, or after {@link CLOSING_WAIT_MS} with FORCE
 * (PostgreSQL 13+), which ends those a failed test left open. A `pg` pool's `end()` resolves
 * while its clients' connections are still closing; FORCE would terminate them, and a client
 * being ended that hears of it has no listener left: an uncaught error in the test's process.
 */
async function dropWhenClosed(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const deadline = Date.now() + CLOSING_WAIT_MS;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ open: number }>(
        "SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = $1",
        [name],
      );
      if (rows[0]?.open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function runOnServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
