import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import pg from "pg";
import { type ClusterDatabase, createClusterDatabase, DEFAULT_DATABASE_SERVER_URL } from "./database.ts";
import { ensurePrograms } from "./debian-packages.ts";
import { createFleetSecrets, instanceRestarts, startFleet } from "./fleet.ts";
import type { FolioInstance } from "./folio-instance.ts";
import type { HAProxy } from "./haproxy.ts";
import { type PgBouncer, startPgBouncer } from "./pgbouncer.ts";
import { type RedisServer, startRedis } from "./redis.ts";
import type { Supervision } from "./supervised.ts";

/**
 * Options of {@link startCluster}. `signal` abandons the start (what has started is stopped in
 * order, the run directory removed unless `keepFiles`); `kill` kills every process at once, also
 * during stop(), which then only drops the database and removes the files.
 */
export interface ClusterOptions extends Supervision {
  /** Folio instances behind HAProxy (default 3). */
  readonly instances?: number;
  /** Added to every instance's environment (rate limits, pool size, log level, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /** PostgreSQL server to create the cluster's database on (default DATABASE_URL's, else 127.0.0.1:5432). */
  readonly databaseServerUrl?: string;
  /** PgBouncer's server connections to PostgreSQL (default 20). */
  readonly pgbouncerPoolSize?: number;
  /** HAProxy's frontend port (default: a free one). */
  readonly port?: number;
  /** Install missing Debian packages with apt-get (as root) before starting (default false). */
  readonly install?: boolean;
  /** Keep the run directory (logs, configuration) after stop() (default false). */
  readonly keepFiles?: boolean;
}

/** Folio behind HAProxy, with PgBouncer before PostgreSQL and a Redis, all on loopback ports. */
export interface Cluster {
  /** HAProxy's frontend: REST, Connect, gRPC-Web and gRPC. */
  readonly url: string;
  readonly haproxy: HAProxy;
  readonly pgbouncer: PgBouncer;
  readonly redis: RedisServer;
  readonly database: ClusterDatabase;
  readonly instances: readonly FolioInstance[];
  /** Signs the access tokens the instances accept. */
  readonly issuer: TestIssuer;
  /** The path HAProxy checks: `/readyz`, or `/healthz` on a server without readiness. */
  readonly healthPath: string;
  /** Logs and configuration files of every process. */
  readonly dir: string;
  /**
   * Replaces the instance `name` as a rolling update does: SIGTERM (HAProxy takes it out while it
   * drains), then the server again on its port with the cluster's environment changed by `env`.
   * Resolves with the new instance, in the old one's place in `instances`, once HAProxy has it UP.
   * Refused, the instance left running, when apps/server/dist was rebuilt since the cluster started.
   */
  restartInstance(name: string, env?: Readonly<Record<string, string>>): Promise<FolioInstance>;
  /** Runs SQL straight on PostgreSQL (not through PgBouncer), as an operator would. */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Stops HAProxy, then the instances (SIGTERM), PgBouncer and Redis, and drops the database. */
  stop(): Promise<void>;
}

/** Every instance's settings, before the cluster's own and the caller's. */
const INSTANCE_SETTINGS = {
  NODE_ENV: "production",
  // PgBouncer 1.18 cannot keep a connection's prepared statements in transaction mode.
  DATABASE_PREPARED_STATEMENTS: "false",
};

/** Starts a cluster; on failure, stops what it had started and rethrows. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const binaries = ensurePrograms({ install: options.install ?? false });
  options.signal?.throwIfAborted();
  const supervision = { signal: options.signal, kill: options.kill, detached: options.detached };
  const count = options.instances ?? 3;
  const dir = await mkdtemp(join(tmpdir(), "folio-cluster-"));
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const env = options.env ?? {};
    const statementTimeoutMs = Number(env.DATABASE_STATEMENT_TIMEOUT_MS ?? 5000);
    const database = await createClusterDatabase(
      options.databaseServerUrl ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_SERVER_URL,
      {
        statementTimeoutMs,
        lockTimeoutMs: Number(env.DATABASE_LOCK_TIMEOUT_MS ?? 2000),
        // As the server asks for it (packages/db createDb).
        idleInTransactionSessionTimeoutMs: Math.max(statementTimeoutMs * 2, 10_000),
      },
    );
    cleanups.push(() => database.drop());
    const sqlPool = new pg.Pool({ connectionString: database.url, max: 2 });
    cleanups.push(() => sqlPool.end());

    const redis = await startRedis({ binary: binaries.redisServer, dir, ...supervision });
    cleanups.push(() => redis.stop());
    const poolSize = Number(env.DATABASE_POOL_SIZE ?? 10);
    const pgbouncer = await startPgBouncer({
      binary: binaries.pgbouncer,
      dir,
      database,
      poolSize: options.pgbouncerPoolSize ?? 20,
      maxClientConnections: count * poolSize + 50,
      ...supervision,
    });
    cleanups.push(() => pgbouncer.stop());

    const { issuer, jwksFile, pageTokenSecret } = await createFleetSecrets(dir);
    const instanceEnv = (name: string) => ({
      ...INSTANCE_SETTINGS,
      DATABASE_URL: pgbouncer.url,
      REDIS_URL: redis.url,
      AUTH_JWKS_FILE: jwksFile,
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_AUDIENCE: TEST_AUDIENCE,
      PAGE_TOKEN_SECRET: pageTokenSecret,
      DATA_DIR: join(dir, `${name}-data`),
      ...env,
    });
    const fleet = await startFleet(
      {
        count,
        dir,
        env: instanceEnv,
        haproxyBinary: binaries.haproxy,
        ...supervision,
        ...(options.port === undefined ? {} : { port: options.port }),
      },
      cleanups,
    );
    const { haproxy, healthPath } = fleet;
    // Restarts put their instance in its place here, so that stop() stops the one running.
    const instances = [...fleet.instances];
    const restarts = instanceRestarts(instances, {
      ...supervision,
      dir,
      env: instanceEnv,
      haproxy,
      build: fleet.build,
    });

    let stopping: Promise<void> | undefined;
    return {
      url: haproxy.url,
      haproxy,
      pgbouncer,
      redis,
      database,
      instances,
      issuer,
      healthPath,
      dir,
      restartInstance: (name, env = {}) => restarts.restart(name, env),
      async sql(text, values) {
        return (await sqlPool.query(text, values)).rows;
      },
      stop() {
        stopping ??= (async () => {
          // A restart under way gives up first, stopping what it started.
          await restarts.stop();
          // In the order traffic flows: nothing is sent to an instance that is gone.
          await haproxy.stop().catch(() => undefined);
          await Promise.all(instances.map((instance) => instance.stop().catch(() => undefined)));
          cleanups.length = 0;
          await pgbouncer.stop().catch(() => undefined);
          await redis.stop().catch(() => undefined);
          await sqlPool.end().catch(() => undefined);
          await database.drop();
          if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
        })();
        return stopping;
      },
    };
  } catch (error) {
    await cleanUp();
    if (options.signal?.aborted) {
      if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
      throw error;
    }
    // The logs explain the failure: they are kept, and the message says where.
    if (error instanceof Error) error.message += `\n(logs and configuration in ${dir})`;
    throw error;
  }
}
