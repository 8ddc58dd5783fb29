import { asUnavailable, DatabaseUnavailableError } from "./database-errors.js";
import type { Prisma } from "./gen/prisma/client.js";
import type { ReadRouting } from "./replica-reads.js";
import type { SqlRunner } from "./sql-runner.js";
import type { QueriesOf, TableList } from "./tables.js";
import type { WriteSlots } from "./write-slots.js";

/** Why a query failed: the reason of its {@link DatabaseUnavailableError}, or `other`. */
export type QueryFailureReason = DatabaseUnavailableError["reason"] | "other";

/**
 * Told once of each query that fails, with its reason and the query (`folders.create`). A
 * failure inside a transaction is told by the query that failed, not again by the transaction;
 * the transaction's own failures (begin, commit, its write slot) are told as `transaction`.
 */
export type OnQueryFailure = (reason: QueryFailureReason, query: string) => void;

type Query = (...args: unknown[]) => Promise<unknown>;

/** Where queries outside transactions go first: the writes to a slot, the replica reads to it. */
export interface PoolRoutes<T extends TableList> {
  readonly asWrite: WriteSlots;
  readonly replica?: {
    readonly routing: ReadRouting;
    /** The replica's own queries of the tables that have replica reads. */
    readonly queries: Partial<QueriesOf<T>>;
  };
}

/** The one wrapper between the tables' queries and their callers. */
export interface DatabaseEdge<T extends TableList> {
  /** The queries on the pool: writes in a slot, replica reads routed, failures mapped and told. */
  onPool(sql: SqlRunner, client: Prisma.TransactionClient, routes: PoolRoutes<T>): QueriesOf<T>;
  /** The queries of one transaction, failures mapped and told. */
  inTransaction(sql: SqlRunner, client: Prisma.TransactionClient): QueriesOf<T>;
  /** Rethrows a transaction's failure mapped; told when it is the database's and not told yet. */
  transactionFailed(error: unknown): never;
}

/**
 * The edge of the tables of `tables`: every query's failures mapped to DatabaseUnavailableError
 * (`database-errors.ts`) and told to `onQueryFailure`, its routes taken from the table's entry.
 */
export function databaseEdge<T extends TableList>(
  tables: T,
  onQueryFailure?: OnQueryFailure,
): DatabaseEdge<T> {
  const told = new WeakSet<object>();
  const tell = (error: unknown, query: string) => {
    if (onQueryFailure === undefined || typeof error !== "object" || error === null || told.has(error))
      return;
    told.add(error);
    onQueryFailure(error instanceof DatabaseUnavailableError ? error.reason : "other", query);
  };
  const edged = (query: string, run: Query): Query => {
    const failed = (error: unknown): never => {
      const mapped = asUnavailable(error) ?? error;
      tell(mapped, query);
      throw mapped;
    };
    return (...args) => run(...args).catch(failed);
  };
  const wire = (
    sql: SqlRunner,
    client: Prisma.TransactionClient,
    route: (table: string, name: string, run: Query) => Query,
  ): QueriesOf<T> => {
    const wired: Record<string, Record<string, Query>> = {};
    for (const [table, entry] of Object.entries(tables)) {
      const queries: Record<string, Query> = {};
      for (const [name, run] of Object.entries(entry.queries(sql, client) as Record<string, Query>)) {
        queries[name] = edged(`${table}.${name}`, route(table, name, run));
      }
      wired[table] = queries;
    }
    return wired as QueriesOf<T>;
  };
  return {
    onPool: (sql, client, { asWrite, replica }) =>
      wire(sql, client, (table, name, run) => {
        const entry = tables[table] as T[string];
        if (entry.writes?.includes(name) === true) return (...args) => asWrite(() => run(...args));
        const onReplica = (replica?.queries[table] as Record<string, Query> | undefined)?.[name];
        if (replica === undefined || onReplica === undefined || entry.replicaReads?.includes(name) !== true)
          return run;
        return (...args) =>
          replica.routing.read(
            () => onReplica(...args),
            () => run(...args),
          );
      }),
    inTransaction: (sql, client) => wire(sql, client, (_table, _name, run) => run),
    transactionFailed(error) {
      const mapped = asUnavailable(error) ?? error;
      // The service's own errors are not the database's; a query's failure was told by the query.
      if (mapped instanceof DatabaseUnavailableError) tell(mapped, "transaction");
      throw mapped;
    },
  };
}
