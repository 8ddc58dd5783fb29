import { DatabaseUnavailableError, type Db, type Queries } from "@folio/db";

/**
 * The same database, telling `failed` of each query that fails: with the reason of a
 * DatabaseUnavailableError (`unreachable`, `pool-timeout`, `statement-timeout`, `lock-timeout`, `read-only`),
 * or `other`. A failure inside a transaction is told once, by the query that failed.
 */
export function countingQueryErrors(db: Db, failed: (reason: string) => void): Db {
  const told = new WeakSet<object>();
  const tell = (error: unknown) => {
    if (typeof error !== "object" || error === null || told.has(error)) return;
    told.add(error);
    failed(error instanceof DatabaseUnavailableError ? error.reason : "other");
  };
  const counting = <T extends object>(queries: T): T =>
    Object.fromEntries(
      Object.entries(queries).map(([name, query]) => [
        name,
        (...args: unknown[]) =>
          (query as (...a: unknown[]) => Promise<unknown>)(...args).catch((error: unknown) => {
            tell(error);
            throw error;
          }),
      ]),
    ) as T;
  const countingQueries = (queries: Queries): Queries => ({
    folders: counting(queries.folders),
    projects: counting(queries.projects),
    idempotencyKeys: counting(queries.idempotencyKeys),
  });
  return {
    ...db,
    ...countingQueries(db),
    transaction: (work) =>
      db
        .transaction((tx) => work(countingQueries(tx)))
        .catch((error: unknown) => {
          // The transaction's own failures (begin, commit); the service's errors are not the database's.
          if (error instanceof DatabaseUnavailableError) tell(error);
          throw error;
        }),
  };
}
