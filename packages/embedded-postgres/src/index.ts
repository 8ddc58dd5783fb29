/**
 * PostgreSQL without a server to install: a PGlite database, kept in a directory (or in memory),
 * served on a loopback port so that the ordinary `pg` driver (and Prisma's adapter-pg) talks to it
 * exactly as it talks to a real PostgreSQL server.
 */
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * Connections accepted at once unless told otherwise. The socket server multiplexes every
 * connection onto PGlite's single session, so a connection costs only a socket; but it does so
 * message by message, and extended-protocol queries (Parse/Bind/Execute) of two connections at
 * the same instant can interleave and fail ("bind message supplies 4 parameters, but prepared
 * statement requires 7"): a client that runs queries concurrently should use one connection
 * ({@link EMBEDDED_POOL_SIZE}). The socket server's own default of 1 would still refuse every
 * other client at the same time (a migration runner, psql: each connection beyond the limit is cut
 * and its query fails with ECONNRESET), so the default leaves room: 100, PostgreSQL's own
 * `max_connections` default.
 */
export const DEFAULT_MAX_CONNECTIONS = 100;

/**
 * Connections a client pool should open to the embedded database: one, as concurrent
 * extended-protocol queries of two connections can interleave (see {@link DEFAULT_MAX_CONNECTIONS}).
 */
export const EMBEDDED_POOL_SIZE = 1;

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Directory holding the database, created if missing; omitted, the database lives in memory. */
  dataDir?: string;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on (default 0: any free port, see `url`). */
  port?: number;
  /** Client connections accepted at once (default {@link DEFAULT_MAX_CONNECTIONS}). */
  maxConnections?: number;
}

/** A running embedded database. */
export interface EmbeddedPostgres {
  /** `postgres://postgres@<host>:<port>/postgres`, for `pg.Pool` or Prisma's adapter-pg. */
  url: string;
  /** Absolute path of the data directory, or undefined for an in-memory database. */
  dataDir: string | undefined;
  /**
   * Closes the server, then the database (a clean shutdown: the data directory can be reopened).
   * End client pools first: connections still open are cut, and a transaction left open is
   * rolled back.
   */
  stop(): Promise<void>;
}

/** Starts PGlite and serves it on the PostgreSQL wire protocol. */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
  const host = options.host ?? "127.0.0.1";

  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({
    db,
    host,
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  // getServerConn() is "host:port" with the port the OS picked when asked for port 0.
  const port = Number(server.getServerConn().split(":").pop());

  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://postgres@${connectableHost(host)}:${port}/postgres`,
    dataDir,
    stop() {
      stopping ??= (async () => {
        await server.stop();
        await db.close();
      })();
      return stopping;
    },
  };
}

/** The address clients dial: a wildcard listen address is reached through loopback. */
function connectableHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
