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
      // FORCE (PostgreSQL 13+) ends connections a failed test may have left open.
      dropping ??= runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return dropping;
    },
  };
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
