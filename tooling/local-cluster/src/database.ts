import { createDatabaseOnServer } from "@folio/test-support";
import pg from "pg";

/** The PostgreSQL server used when DATABASE_URL is unset: the machine's own, as CI runs it. */
export const DEFAULT_DATABASE_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

/**
 * The session settings Folio asks for in its connections' startup packets, which PgBouncer cannot
 * pass on (see config/pgbouncer.ini): set on the database instead, they hold on every server
 * connection PgBouncer opens.
 */
export interface SessionTimeouts {
  readonly statementTimeoutMs: number;
  readonly lockTimeoutMs: number;
  readonly idleInTransactionSessionTimeoutMs: number;
}

/** A database of the cluster's own on a PostgreSQL server. */
export interface ClusterDatabase {
  readonly name: string;
  /** Straight to PostgreSQL, bypassing PgBouncer. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Drops the database, ending its connections. */
  drop(): Promise<void>;
}

/**
 * Creates `folio_cluster_<random>` on the server of `serverUrl`, with `timeouts` as the database's
 * defaults (`ALTER DATABASE ... SET`). Nothing of the server itself is changed.
 */
export async function createClusterDatabase(
  serverUrl: string,
  timeouts: SessionTimeouts,
): Promise<ClusterDatabase> {
  const created = await createDatabaseOnServer(serverUrl, "folio_cluster");
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const settings = {
      statement_timeout: timeouts.statementTimeoutMs,
      lock_timeout: timeouts.lockTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionSessionTimeoutMs,
    };
    for (const [name, ms] of Object.entries(settings)) {
      // Identifiers and integers only: nothing here comes from outside the program.
      await client.query(`ALTER DATABASE ${created.name} SET ${name} = ${Math.trunc(ms)}`);
    }
  } catch (error) {
    await client.end();
    await created.drop();
    throw error;
  }
  await client.end();
  const url = new URL(created.url);
  return {
    name: created.name,
    url: created.url,
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || "postgres"),
    password: decodeURIComponent(url.password),
    drop: () => created.drop(),
  };
}
