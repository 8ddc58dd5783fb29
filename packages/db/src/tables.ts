import { folderQueries } from "./folders.js";
import type { Prisma } from "./gen/prisma/client.js";
import { idempotencyKeyQueries } from "./idempotency-keys.js";
import { projectQueries } from "./projects.js";
import type { SqlRunner } from "./sql-runner.js";

/** A table's queries, and which of them the edge runs in a write slot or on the replica. */
export interface Table<Q extends object> {
  /**
   * Makes the queries: hand-written SQL run by `sql`, Prisma's model API on `client` (both on the
   * pool, or both in one transaction).
   */
  readonly queries: (sql: SqlRunner, client: Prisma.TransactionClient) => Q;
  /** Writes that, outside a transaction, wait for one of the pool's write slots (`write-slots.ts`). */
  readonly writes?: readonly (keyof Q & string)[];
  /** Reads served by the read replica when one is configured, the primary otherwise. */
  readonly replicaReads?: readonly (keyof Q & string)[];
}

/** A table of the list; `table()` checks that its writes and replica reads are its queries. */
export interface AnyTable {
  readonly queries: (sql: SqlRunner, client: Prisma.TransactionClient) => object;
  readonly writes?: readonly string[];
  readonly replicaReads?: readonly string[];
}

/** Tables by name, as `db.<name>` and `tx.<name>` offer their queries. */
export type TableList = { readonly [name: string]: AnyTable };

/** The queries of each table of `T`, by name. */
export type QueriesOf<T extends TableList> = { readonly [K in keyof T]: ReturnType<T[K]["queries"]> };

/** One entry of a table list, typed by its queries. */
export function table<Q extends object>(entry: Table<Q>): Table<Q> {
  return entry;
}

/**
 * Folio's tables. An entry here is all a new table needs to be wired: `db` and every transaction
 * offer its queries, their failures are mapped and counted, its writes take a slot.
 */
export const TABLES = {
  folders: table({ queries: folderQueries, writes: ["create"], replicaReads: ["get", "page"] }),
  projects: table({ queries: projectQueries, replicaReads: ["page"] }),
  idempotencyKeys: table({ queries: idempotencyKeyQueries }),
};
