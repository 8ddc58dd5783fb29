import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "@folio/test-support/ports";
import pg from "pg";
import type { ClusterDatabase } from "./database.ts";
import { type Supervised, type Supervision, startFailed, startSupervised } from "./supervised.ts";
import { renderTemplate } from "./template.ts";
import { waitFor } from "./wait.ts";

/** A running PgBouncer in front of one database. */
export interface PgBouncer {
  readonly process: Supervised;
  /** The database through PgBouncer: what the instances get as DATABASE_URL. */
  readonly url: string;
  /** PgBouncer's admin console (`SHOW POOLS`, `SHOW STATS`). */
  readonly adminUrl: string;
  /** Runs a command of the admin console, e.g. `SHOW POOLS`. */
  admin(command: string): Promise<Record<string, unknown>[]>;
  /** Shuts down: SIGINT waits for clients' transactions to end. */
  stop(): Promise<void>;
}

/** Options of {@link startPgBouncer}. */
export interface PgBouncerOptions extends Supervision {
  readonly binary: string;
  readonly dir: string;
  readonly database: ClusterDatabase;
  /** Server connections to PostgreSQL. */
  readonly poolSize: number;
  readonly maxClientConnections: number;
}

/** Writes pgbouncer.ini from the template in `dir`, starts PgBouncer and waits until it serves. */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const { database, dir } = options;
  const port = await freePort();
  const values = {
    DATABASE: database.name,
    SERVER_HOST: database.host,
    SERVER_PORT: database.port,
    SERVER_USER: database.user,
    SERVER_PASSWORD: database.password === "" ? "" : ` password=${database.password}`,
    LISTEN_PORT: port,
    AUTH_FILE: join(dir, "pgbouncer-users.txt"),
    POOL_SIZE: options.poolSize,
    MAX_CLIENT_CONN: options.maxClientConnections,
  };
  const ini = join(dir, "pgbouncer.ini");
  await writeFile(ini, await renderTemplate("pgbouncer.ini", values), { mode: 0o644 });
  await writeFile(values.AUTH_FILE, await renderTemplate("pgbouncer-users.txt", values), { mode: 0o644 });

  // PgBouncer refuses to run as root: as root, it is told to switch to an unprivileged user, which
  // must be able to read its configuration.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(dir, 0o755);
  const args = asRoot ? ["-u", "nobody", ini] : [ini];
  const child = startSupervised("pgbouncer", options.binary, args, join(dir, "pgbouncer.log"), {
    kill: options.kill,
    detached: options.detached,
  });

  const userinfo = `${encodeURIComponent(database.user)}${database.password === "" ? "" : `:${encodeURIComponent(database.password)}`}`;
  const url = `postgresql://${userinfo}@127.0.0.1:${port}/${database.name}`;
  const adminUrl = `postgresql://${userinfo}@127.0.0.1:${port}/pgbouncer`;
  const query = async (connectionString: string, text: string) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      return (await client.query(text)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };
  try {
    await waitFor(
      "PgBouncer serving the database",
      async () => ((await query(url, "SELECT 1")) ? true : undefined),
      {
        abort: () => (child.exit === undefined ? undefined : "PgBouncer exited"),
        intervalMs: 200,
        signal: options.signal,
      },
    );
  } catch (error) {
    throw await startFailed(child, error, options.signal);
  }
  return {
    process: child,
    url,
    adminUrl,
    admin: (command) => query(adminUrl, command),
    async stop() {
      await child.stop("SIGINT", 10_000);
    },
  };
}
