import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import pg from "pg";
import { ensurePrograms } from "./debian-packages.ts";
import { createFleetSecrets, startFleet } from "./fleet.ts";
import type { FolioInstance } from "./folio-instance.ts";
import { ensureHaPrograms } from "./ha-packages.ts";
import type { HAProxy } from "./haproxy.ts";
import { type PostgresHA, startPostgresHA } from "./postgres-ha.ts";
import { type RedisServer, startRedis } from "./redis.ts";
import type { Supervision } from "./supervised.ts";

/**
 * Options of {@link startHaCluster}. `signal` abandons the start (what has started is stopped in
 * order, the run directory removed unless `keepFiles`); `kill` kills every process at once (the
 * postmasters too), also during stop().
 */
export interface HaClusterOptions extends Supervision {
  /** Folio instances behind HAProxy (default 2). */
  readonly instances?: number;
  /** Added to every instance's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** HAProxy's frontend port (default: a free one). */
  readonly port?: number;
  /** Install missing Debian packages with apt-get (as root) before starting (default false). */
  readonly install?: boolean;
  /** Keep the run directory (logs, configuration, data) after stop() (default false). */
  readonly keepFiles?: boolean;
}

/**
 * Folio behind HAProxy on a highly available PostgreSQL: three nodes under Patroni (etcd holds the
 * leader key), HAProxy's primary port as DATABASE_URL and its replica port as DATABASE_READ_URL.
 */
export interface HaCluster {
  /** HAProxy's frontend: REST, Connect, gRPC-Web and gRPC. */
  readonly url: string;
  readonly haproxy: HAProxy;
  readonly postgres: PostgresHA;
  readonly redis: RedisServer;
  readonly instances: readonly FolioInstance[];
  readonly issuer: TestIssuer;
  /** The database's name on the PostgreSQL nodes. */
  readonly databaseName: string;
  readonly dir: string;
  /** The environment the cluster's instances run with, for one more instance named `name`. */
  instanceEnv(name: string): Record<string, string>;
  /** Runs SQL on the primary, through HAProxy's primary port. */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

/** Starts the highly available cluster; on failure, stops what it had started and rethrows. */
export async function startHaCluster(options: HaClusterOptions = {}): Promise<HaCluster> {
  const install = options.install ?? false;
  const binaries = ensurePrograms({ install });
  const ha = ensureHaPrograms({ install });
  options.signal?.throwIfAborted();
  const supervision = { signal: options.signal, kill: options.kill, detached: options.detached };
  const dir = await mkdtemp(join(tmpdir(), "folio-ha-cluster-"));
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const postgres = await startPostgresHA({
      dir,
      binaries: { ...ha, haproxy: binaries.haproxy },
      ...supervision,
    });
    cleanups.push(() => postgres.stop());
    const databaseName = "folio";
    const admin = new pg.Client({ connectionString: postgres.primaryUrl("postgres") });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`).finally(() => admin.end());
    const sqlPool = new pg.Pool({ connectionString: postgres.primaryUrl(databaseName), max: 2 });
    // The primary fails over under the tests: an idle connection cut then is no failure.
    sqlPool.on("error", () => undefined);
    cleanups.push(() => sqlPool.end());
    const redis = await startRedis({ binary: binaries.redisServer, dir, ...supervision });
    cleanups.push(() => redis.stop());

    const { issuer, jwksFile, pageTokenSecret } = await createFleetSecrets(dir);
    const instanceEnv = (name: string): Record<string, string> => ({
      NODE_ENV: "production",
      DATABASE_URL: postgres.primaryUrl(databaseName),
      DATABASE_READ_URL: postgres.replicaUrl(databaseName),
      REDIS_URL: redis.url,
      AUTH_JWKS_FILE: jwksFile,
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_AUDIENCE: TEST_AUDIENCE,
      PAGE_TOKEN_SECRET: pageTokenSecret,
      DATA_DIR: join(dir, `${name}-data`),
      ...options.env,
    });
    const { instances, haproxy } = await startFleet(
      {
        count: options.instances ?? 2,
        dir,
        env: instanceEnv,
        haproxyBinary: binaries.haproxy,
        healthPath: "/readyz",
        ...supervision,
        ...(options.port === undefined ? {} : { port: options.port }),
      },
      cleanups,
    );
    let stopping: Promise<void> | undefined;
    return {
      url: haproxy.url,
      haproxy,
      postgres,
      redis,
      instances,
      issuer,
      databaseName,
      dir,
      instanceEnv,
      async sql(text, values) {
        return (await sqlPool.query(text, values)).rows;
      },
      stop() {
        stopping ??= (async () => {
          for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
          if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
        })();
        return stopping;
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    if (options.signal?.aborted) {
      if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
      throw error;
    }
    if (error instanceof Error) error.message += `\n(logs and configuration in ${dir})`;
    throw error;
  }
}
