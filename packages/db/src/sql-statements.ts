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
 * and the mapping of failures are the same; the span (within a recorded trace) is this package's
 * own, as Prisma's instrumentation only sees Prisma's queries.
 */
export function sqlOnPool(pool: pg.Pool): RunSql {
  const run = async <Row>(statement: Prisma.Sql) =>
    // pg parses the same types as Prisma's raw queries return for these statements' columns:
    // text and uuid as strings, timestamptz as Date, float8 and boolean as themselves.
    (await pool.query(statement.text, statement.values as unknown[])).rows as Row[];
  return async <Row>(operation: string, statement: Prisma.Sql) => {
    // Outside a recorded trace (tracing off, or a request not sampled) a span would be dropped:
    // none is made, and the hot path pays nothing for tracing.
    if (trace.getActiveSpan()?.isRecording() !== true) return run<Row>(statement);
    return tracer.startActiveSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: { "db.system.name": "postgresql", "db.query.text": statement.text },
      },
      async (span) => {
        try {
          return await run<Row>(statement);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };
}

/** Runs statements in a Prisma transaction (its connection), by `$queryRaw`. */
export function sqlInTransaction(client: Prisma.TransactionClient): RunSql {
  return <Row>(_operation: string, statement: Prisma.Sql) => client.$queryRaw<Row[]>(statement);
}
