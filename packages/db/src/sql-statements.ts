import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type pg from "pg";
import type { Prisma } from "./gen/prisma/client.js";

/**
 * Runs one of this package's hand-written SQL statements and resolves with its rows. `operation`
 * names it in traces (as OpenTelemetry's database conventions: `SELECT projects`).
 */
export type RunSql = <Row>(operation: string, statement: Prisma.Sql) => Promise<Row[]>;

const tracer = trace.getTracer("@folio/db");

/**
 * Runs statements on `pool` through `pg` itself. For the hot statements outside transactions
 * (a page of projects, a folder's create): Prisma's raw-query pipeline (its client engine,
 * the driver adapter's result conversion, its debug and tracing hooks) cost as much CPU as `pg`
 * did for a 10-row page, measured at 130-180 µs per query. The statement, the pool, its timeouts
 * and the mapping of failures are the same; the span is this package's own, as Prisma's
 * instrumentation only sees Prisma's queries.
 */
export function sqlOnPool(pool: pg.Pool): RunSql {
  return async <Row>(operation: string, statement: Prisma.Sql) =>
    tracer.startActiveSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: { "db.system.name": "postgresql", "db.query.text": statement.text },
      },
      async (span) => {
        try {
          // pg parses the same types as Prisma's raw queries return for these statements' columns:
          // text and uuid as strings, timestamptz as Date, boolean as boolean.
          const result = await pool.query(statement.text, statement.values as unknown[]);
          return result.rows as Row[];
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
}

/** Runs statements in a Prisma transaction (its connection), by `$queryRaw`. */
export function sqlInTransaction(client: Prisma.TransactionClient): RunSql {
  return <Row>(_operation: string, statement: Prisma.Sql) => client.$queryRaw<Row[]>(statement);
}
