import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { databaseEdge, type OnQueryFailure } from "./database-edge.js";
import { rethrowMapped } from "./database-errors.js";
import { PrismaClient } from "./gen/prisma/client.js";
import { pendingMigrations } from "./migrate.js";
import { type PoolCloseReport, poolCloser } from "./pool-close.js";
import { type PreparedStatements, preparedStatements } from "./prepared-statements.js";
import { canWrite, dropReadOnlyConnections } from "./read-only-connections.js";
import { REPLICA_LAG_SQL, type ReadRoute, routeReads } from "./replica-reads.js";
import { type SessionTimeouts, sessionTimeouts, startupParameters } from "./session-settings.js";
import { settlesWithin } from "./settles-within.js";
import { sqlInTransaction, sqlOnPool } from "./sql-runner.js";
import { type QueriesOf, TABLES, type TableList } from "./tables.js";
import { writeSlots } from "./write-slots.js";

/** Options of {@link createDb}. */
export interface CreateDbOptions {
  /**
   * Connections in the pool. Required: the right number depends on the server (the embedded
   * database wants `EMBEDDED_POOL_SIZE` of @folio/embedded-postgres; PostgreSQL its share of
   * `max_connections`).
   */
  readonly poolSize: number;
  /** How long a query may wait for a connection: a free one of the pool, or a new one to open (default 10 s). */
  readonly acquireTimeoutMs?: number;
  /** PostgreSQL's `statement_timeout` for every statement (default 5 s; 0 turns it off). */
  readonly statementTimeoutMs?: number;
  /** PostgreSQL's `lock_timeout`: how long a statement waits for a lock (default 2 s; 0: off). */
  readonly lockTimeoutMs?: number;
  /** Told of errors of idle connections (the server went away); they never reach a query. */
  readonly onConnectionError?: (error: Error) => void;
  /** Told once of each query that fails, with its reason (for metrics); see {@link OnQueryFailure}. */
  readonly onQueryFailure?: OnQueryFailure;
  /** Replicas to serve the tables' `replicaReads` from (a pool of their own); absent: every query on `url`. */
  readonly replica?: ReplicaOptions;
  /**
   * Whether statements are prepared by name, so that PostgreSQL plans each once per connection
   * (default true). False for a pooler in transaction mode that cannot keep them (PgBouncer before
   * 1.21); left true there, the first statement the server refuses turns them off.
   */
  readonly preparedStatements?: boolean;
  /** Told once when the server turns out not to keep prepared statements (they are off from then on). */
  readonly onPreparedStatementsNotKept?: () => void;
}

/** A pool of read replicas (a hot standby, or a proxy port that balances over several). */
export interface ReplicaOptions {
  readonly url: string;
  readonly poolSize: number;
  /** How long a read waits for a replica connection before it goes to the primary (default 2 s). */
  readonly acquireTimeoutMs?: number;
  /** Replay lag past which reads go to the primary (default 2 s). */
  readonly maxLagMs?: number;
  /** Between two checks of the replica's lag (default 1 s). */
  readonly checkIntervalMs?: number;
  /** Told of each change of where reads go, and why. */
  readonly onRouteChange?: (route: ReadRoute, reason: string) => void;
}

/** The queries of Folio, by table (`tables.ts`). */
export type Queries = QueriesOf<typeof TABLES>;

/** Connections of the pool right now. */
export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly waiting: number;
}

/** What closing the database did to the work still running on it (both pools, with a replica). */
export type DbCloseReport = PoolCloseReport;

/** How long a close waits for connections in use, unless told. */
const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/** The Folio database: its queries, transactions, and the pool behind them. */
export interface Db extends Queries, DbControls<Queries> {}

/** What a database offers besides its tables' queries `Q`. */
export interface DbControls<Q> {
  /**
   * Runs `work` in one transaction: its queries commit together or not at all. Failures of the
   * database (unreachable, timeouts) reject with `DatabaseUnavailableError`.
   */
  transaction<T>(work: (tx: Q) => Promise<T>): Promise<T>;
  /** True when the database answers a query now. */
  ping(): Promise<boolean>;
  /**
   * True when a new connection to the primary URL can write; false when it reaches a read-only
   * server (a standby, a demoted primary behind a stale route). Rejects when it is unreachable.
   */
  writable(): Promise<boolean>;
  /** Where replica reads (listings, folder reads) go now: `replica` while one is configured and within its lag bound. */
  readRoute(): ReadRoute;
  /**
   * True when a replica is configured and answers a query now, whatever its lag: listings fall
   * back to it while the primary cannot serve them. False when none is configured or it fails.
   */
  replicaAnswers(): Promise<boolean>;
  /** Names of this package's migrations the database has not applied; rejects when it cannot be queried. */
  pendingMigrations(): Promise<string[]>;
  poolStats(): PoolStats;
  /**
   * Closes every connection of the pool. Statements still running are cancelled at once, and a
   * connection still in use `timeoutMs` later (default 5 s) is closed from this side.
   */
  close(options?: { readonly timeoutMs?: number }): Promise<DbCloseReport>;
}

/** Connects to the database at `url` through a `pg` pool. Apply migrations first. */
export function createDb(url: string, options: CreateDbOptions): Db {
  return createDbOf(TABLES, url, options);
}

/** {@link createDb} for the tables of `tables` (Folio's are `TABLES`). */
export function createDbOf<T extends TableList>(
  tables: T,
  url: string,
  options: CreateDbOptions,
): QueriesOf<T> & DbControls<QueriesOf<T>> {
  if (!Number.isInteger(options.poolSize) || options.poolSize < 1) {
    throw new RangeError(`poolSize must be a positive integer, got ${options.poolSize}`);
  }
  const acquireTimeoutMs = options.acquireTimeoutMs ?? 10_000;
  const timeouts = sessionTimeouts(options);
  const onConnectionError = options.onConnectionError ?? (() => undefined);
  const pool = openPool(url, options.poolSize, acquireTimeoutMs, timeouts, onConnectionError);
  const closePool = poolCloser(pool);
  const prisma = prismaOn(pool, acquireTimeoutMs, timeouts.statementTimeoutMs, onConnectionError);
  const edge = databaseEdge(tables, options.onQueryFailure);
  // One for both pools: a replica behind the same kind of pooler refuses them as the primary does.
  const prepared = preparedStatements(
    options.preparedStatements ?? true,
    options.onPreparedStatementsNotKept,
  );
  // Writes may hold all but a quarter of the connections: when a lock blocks them (another
  // session holds `folders`), reads keep connections of their own and stay prompt.
  const asWrite = writeSlots(
    Math.max(1, options.poolSize - Math.ceil(options.poolSize / 4)),
    acquireTimeoutMs,
  );
  const replica =
    options.replica === undefined
      ? undefined
      : openReplica(tables, options.replica, timeouts, onConnectionError, prepared);
  return {
    ...edge.onPool(sqlOnPool(pool, prepared), prisma, {
      asWrite,
      ...(replica === undefined ? {} : { replica }),
    }),
    transaction: (work) =>
      asWrite(() => prisma.$transaction((tx) => work(edge.inTransaction(sqlInTransaction(tx), tx)))).catch(
        edge.transactionFailed,
      ),
    async ping() {
      try {
        await pool.query("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    writable: () => canWrite(pool).catch(rethrowMapped),
    readRoute: () => replica?.routing.route ?? "primary",
    replicaAnswers: async () => (replica === undefined ? false : replica.answers()),
    pendingMigrations: () => pendingMigrations(pool),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close(closeOptions = {}) {
      const timeoutMs = closeOptions.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
      const [primary, replicas] = await Promise.all([
        closeWithin(closePool, prisma, timeoutMs),
        replica?.close(timeoutMs) ?? { cancelled: 0, cut: 0 },
      ]);
      return { cancelled: primary.cancelled + replicas.cancelled, cut: primary.cut + replicas.cut };
    },
  };
}

/** Closes a pool and the Prisma client on it, within `timeoutMs` (see {@link poolCloser}). */
async function closeWithin(
  closePool: (timeoutMs: number) => Promise<PoolCloseReport>,
  prisma: PrismaClient,
  timeoutMs: number,
): Promise<PoolCloseReport> {
  // The pool first: Prisma's disconnect rolls its open transactions back on their connections,
  // behind the statements they run, so it finishes once the pool's close has cancelled those.
  const report = closePool(timeoutMs);
  await settlesWithin(prisma.$disconnect(), timeoutMs);
  return report;
}

/** The pool of one server: bounded waits, the session timeouts, read-only connections dropped. */
function openPool(
  url: string,
  poolSize: number,
  acquireTimeoutMs: number,
  timeouts: SessionTimeouts,
  onConnectionError: (error: Error) => void,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // pg applies this to waiting for a pooled connection as well as to opening one.
    connectionTimeoutMillis: acquireTimeoutMs,
    // statement_timeout, lock_timeout, idle_in_transaction_session_timeout (session-settings.ts).
    ...startupParameters(timeouts),
    // A cut network answers nothing, not even an error: the client gives up on a query a little
    // after the server would have cancelled it, and on a dead peer through TCP keep-alive.
    ...(timeouts.statementTimeoutMs > 0 ? { query_timeout: timeouts.statementTimeoutMs + 1_000 } : {}),
    keepAlive: true,
  });
  // An idle connection that the server drops (restart, admin shutdown) emits 'error' on the pool;
  // without a listener that would end the process.
  pool.on("error", onConnectionError);
  // A checked-out connection (a transaction between its statements) that the server drops emits
  // 'error' on itself, not on the pool: heard while checked out, it is reported the same way, and
  // pg-pool discards it when it is released (a client that has failed is not queryable).
  pool.on("acquire", (client) => client.on("error", onConnectionError));
  pool.on("release", (_error, client) => client.off("error", onConnectionError));
  dropReadOnlyConnections(pool);
  return pool;
}

function prismaOn(
  pool: pg.Pool,
  acquireTimeoutMs: number,
  statementTimeoutMs: number,
  onConnectionError: (error: Error) => void,
): PrismaClient {
  const adapter = new PrismaPg(pool, { onPoolError: onConnectionError, onConnectionError });
  return new PrismaClient({
    adapter,
    // Prisma's other formats capture a stack trace on every query to point its error messages at
    // the caller: 5% of a small call's CPU. Errors here are mapped by their code (database-errors.ts),
    // and their messages are logged, never shown to a client. (Prisma picks "minimal" itself when
    // NODE_ENV=production; this makes every mode the same.)
    errorFormat: "minimal",
    // Waiting for a connection to start a transaction is bounded like any other wait for one.
    transactionOptions: { maxWait: acquireTimeoutMs, timeout: Math.max(statementTimeoutMs * 2, 10_000) },
  });
}

/** The replica pool, its queries (of the tables with replica reads), and the routing that checks its lag. */
function openReplica<T extends TableList>(
  tables: T,
  options: ReplicaOptions,
  timeouts: SessionTimeouts,
  onConnectionError: (error: Error) => void,
  prepared: PreparedStatements,
) {
  const acquireTimeoutMs = options.acquireTimeoutMs ?? 2_000;
  const pool = openPool(options.url, options.poolSize, acquireTimeoutMs, timeouts, onConnectionError);
  const closePool = poolCloser(pool);
  const prisma = prismaOn(pool, acquireTimeoutMs, timeouts.statementTimeoutMs, onConnectionError);
  const routing = routeReads({
    replicaLagMs: async () => Number((await pool.query<{ lag_ms: number }>(REPLICA_LAG_SQL)).rows[0]?.lag_ms),
    maxLagMs: options.maxLagMs ?? 2_000,
    intervalMs: options.checkIntervalMs ?? 1_000,
    ...(options.onRouteChange === undefined ? {} : { onChange: options.onRouteChange }),
  });
  const sql = sqlOnPool(pool, prepared);
  const queries: Partial<QueriesOf<T>> = Object.fromEntries(
    Object.entries(tables)
      .filter(([, entry]) => (entry.replicaReads?.length ?? 0) > 0)
      .map(([name, entry]) => [name, entry.queries(sql, prisma)]),
  ) as Partial<QueriesOf<T>>;
  const selectOne = () => pool.query("SELECT 1").then(() => true);
  return {
    routing,
    queries,
    // Tried twice: a pooled connection that the load balancer cut (the replica it reached was
    // promoted) fails once, and the second try opens a connection to a replica that is one now.
    answers: () =>
      selectOne()
        .catch(selectOne)
        .catch(() => false),
    close(timeoutMs: number) {
      routing.stop();
      return closeWithin(closePool, prisma, timeoutMs);
    },
  };
}
