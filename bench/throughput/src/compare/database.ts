import { applyMigrations } from "@folio/db";
import pg from "pg";

/** The PostgreSQL server databases are created on, unless `--database-url` names another. */
export const DEFAULT_SERVER_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** A database of the benchmark's own on a PostgreSQL server. */
export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  /** Drops it, ending any connection left (PostgreSQL 13+). Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * Creates `<prefix>_<timestamp>` on the server of `serverUrl` and applies Folio's migrations to it
 * with `@folio/db`'s runner (what the server itself runs at start).
 */
export async function createBenchDatabase(serverUrl: string, prefix = "folio_bench"): Promise<BenchDatabase> {
  const name = `${prefix}_${Date.now()}_${process.pid}`;
  await runOnServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropping: Promise<void> | undefined;
  const database: BenchDatabase = {
    name,
    url: url.toString(),
    drop() {
      dropping ??= runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return dropping;
    },
  };
  try {
    await applyMigrations(database.url, { log: () => undefined });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

/** Whether a PostgreSQL server answers at `serverUrl` (within a few seconds). */
export async function serverAnswers(serverUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Inserts `count` projects for each org, in one statement per org: names such as `Office Zürich
 * 1a2b3c4d` from md5(n), so the name order is not the insertion order; a few addresses lack a part
 * (NULL), as rows loaded by other systems may; creation times with and without milliseconds.
 */
export async function seedProjects(
  url: string,
  orgs: readonly { id: string; projects: number }[],
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const org of orgs) {
      await client.query(
        `INSERT INTO projects (org_id, name, street, house_number, postal_code, city, country, created_at)
         SELECT $1::uuid,
                kinds[1 + get_byte(h, 0) % array_length(kinds, 1)] || ' ' || cities[1 + get_byte(h, 1) % array_length(cities, 1)]
                  || ' ' || substr(md5(n::text), 5, 8),
                CASE WHEN get_byte(h, 4) < 16 THEN NULL ELSE streets[1 + get_byte(h, 2) % array_length(streets, 1)] END,
                CASE WHEN get_byte(h, 4) < 24 THEN NULL ELSE (1 + get_byte(h, 3) % 240)::text END,
                CASE WHEN get_byte(h, 5) < 12 THEN NULL ELSE lpad(((get_byte(h, 6) * 256 + get_byte(h, 7)) % 100000)::text, 5, '0') END,
                CASE WHEN get_byte(h, 5) < 6 THEN NULL ELSE cities[1 + get_byte(h, 1) % array_length(cities, 1)] END,
                CASE WHEN get_byte(h, 5) < 6 THEN NULL ELSE countries[1 + get_byte(h, 1) % array_length(cities, 1)] END,
                date_trunc('second', now()) - make_interval(secs => n) + CASE WHEN n % 3 = 0 THEN interval '0' ELSE make_interval(secs => (n % 1000) / 1000.0) END
         FROM generate_series(1, $2::int) AS n,
              LATERAL (SELECT decode(md5($1 || n::text), 'hex') AS h) AS hash,
              (SELECT ARRAY['Office', 'Warehouse', 'Residence', 'School', 'Clinic', 'Bridge', 'Depot', 'Library'] AS kinds,
                      ARRAY['Amsterdam', 'Berlin', 'München', 'Wien', 'Zürich', 'Paris', 'Madrid', 'København'] AS cities,
                      ARRAY['NL', 'DE', 'DE', 'AT', 'CH', 'FR', 'ES', 'DK'] AS countries,
                      ARRAY['Main Street', 'Hauptstraße', 'Rue de la Paix', 'Via Roma', 'Nowy Świat'] AS streets) AS lists`,
        [org.id, org.projects],
      );
    }
    await client.query("ANALYZE projects");
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
