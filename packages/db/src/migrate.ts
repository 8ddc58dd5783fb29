import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import pg from "pg";

/**
 * This package's SQL migrations (`prisma/migrations`), found by the package's name rather than
 * relative to this module, so that they are found from `src/`, from `dist/` and from a bundle
 * that includes this module (the server's) alike.
 */
export const migrationsDir = join(
  dirname(createRequire(import.meta.url).resolve("@folio/db/package.json")),
  "prisma",
  "migrations",
);

/**
 * The advisory lock key `prisma migrate` takes, so this runner and Prisma's CLI exclude each other
 * too. (Prisma takes it for the session; we take it for the transaction, see applyMigrations.)
 */
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

/**
 * Prisma's bookkeeping table, exactly as `prisma migrate` creates it, so that `prisma migrate
 * status` and `prisma migrate deploy` agree with this runner about what has been applied.
 */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Options of {@link applyMigrations}. */
export interface ApplyMigrationsOptions {
  /** Directory of `<name>/migration.sql` folders (default: {@link migrationsDir}). */
  migrationsDir?: string;
  /** Receives progress and warnings (default: `console.warn`). */
  log?: (message: string) => void;
}

/** What {@link applyMigrations} did. */
export interface ApplyMigrationsResult {
  /** Names of the migrations applied by this call, in order; empty when the database was current. */
  applied: string[];
}

interface LocalMigration {
  name: string;
  sql: string;
  checksum: string;
}

interface RecordedMigration {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

/**
 * Applies the pending migrations of `migrationsDir` to the database at `url`, in name order, all in
 * one transaction, and records them in `_prisma_migrations` as `prisma migrate deploy` would.
 * Throws, having changed nothing, when a migration fails, when an applied migration's file has
 * changed, or when a migration failed earlier and was not resolved.
 */
export async function applyMigrations(
  url: string,
  options: ApplyMigrationsOptions = {},
): Promise<ApplyMigrationsResult> {
  const log = options.log ?? ((message: string) => console.warn(message));
  const local = await readMigrations(options.migrationsDir ?? migrationsDir);

  // One connection for everything: on PGlite (one session underneath) a query on a second
  // connection would wait for this transaction to end, which would never come.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    try {
      // Timeouts meant for requests, set on the database or role (as behind PgBouncer, see
      // docs/operations.md), must neither cut a migration short nor give up waiting for another
      // process's migrations below.
      await client.query("SET LOCAL statement_timeout = 0");
      await client.query("SET LOCAL lock_timeout = 0");
      // Taken inside the transaction, on the same connection: a second process starting at the same
      // time waits here until this one commits, then finds nothing left to apply. Released by
      // COMMIT or ROLLBACK, even if this process dies.
      await client.query("SELECT pg_advisory_xact_lock($1)", [PRISMA_ADVISORY_LOCK_KEY]);
      await client.query(CREATE_MIGRATIONS_TABLE);
      const applied = await applyPending(client, local, log);
      await client.query("COMMIT");
      return { applied };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  } finally {
    await client.end();
  }
}

/** Something to run queries on: a `pg.Pool` or `pg.Client`. */
type Queryable = Pick<pg.Pool, "query">;

/** SQLSTATE of a missing table: no migration was ever applied. */
const UNDEFINED_TABLE = "42P01";

/**
 * Names of the migrations in `directory` that the database reached by `db` has not applied (none
 * when its schema is current), for readiness checks: one small query, no lock, nothing written.
 * Rejects when the database cannot be queried.
 */
export async function pendingMigrations(db: Queryable, directory: string = migrationsDir): Promise<string[]> {
  const local = await readMigrations(directory);
  let applied: Set<string>;
  try {
    const { rows } = await db.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) applied = new Set();
    else throw error;
  }
  return local.map((migration) => migration.name).filter((name) => !applied.has(name));
}

async function applyPending(
  client: pg.Client,
  local: LocalMigration[],
  log: (message: string) => void,
): Promise<string[]> {
  // Rows rolled back with `prisma migrate resolve --rolled-back` no longer count, as for Prisma.
  const { rows } = await client.query<RecordedMigration>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"
      WHERE rolled_back_at IS NULL ORDER BY started_at, migration_name`,
  );
  const recorded = new Map(rows.map((row) => [row.migration_name, row]));
  const onDisk = new Set(local.map((migration) => migration.name));

  for (const row of rows) {
    if (row.finished_at === null) {
      throw new Error(
        `migration ${row.migration_name} failed earlier and is recorded as unfinished in _prisma_migrations; ` +
          "repair the database, then mark it with `prisma migrate resolve`",
      );
    }
    if (!onDisk.has(row.migration_name)) {
      log(
        `warning: migration ${row.migration_name} is applied to the database but missing from the migrations directory`,
      );
    }
  }

  const applied: string[] = [];
  for (const migration of local) {
    const row = recorded.get(migration.name);
    if (row !== undefined) {
      if (row.checksum !== migration.checksum) {
        throw new Error(
          `migration ${migration.name} was changed after it was applied (checksum differs); ` +
            "restore its migration.sql and add the change as a new migration",
        );
      }
      continue;
    }
    log(`applying migration ${migration.name}`);
    const id = randomUUID();
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at)
       VALUES ($1, $2, $3, clock_timestamp())`,
      [id, migration.checksum, migration.name],
    );
    try {
      // Without parameters, pg sends the simple query protocol, which runs many statements at once.
      await client.query(migration.sql);
    } catch (error) {
      throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    applied.push(migration.name);
  }
  return applied;
}

/** `<dir>/<name>/migration.sql` in name order (Prisma's names start with a timestamp). */
async function readMigrations(directory: string): Promise<LocalMigration[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrations: LocalMigration[] = [];
  for (const name of names) {
    let contents: Buffer;
    try {
      contents = await readFile(join(directory, name, "migration.sql"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    // Prisma's checksum: SHA-256 of the file's bytes, in hex.
    const checksum = createHash("sha256").update(contents).digest("hex");
    migrations.push({ name, sql: contents.toString("utf8"), checksum });
  }
  return migrations;
}
