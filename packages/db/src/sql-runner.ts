import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type pg from "pg";
import type { Prisma } from "./gen/prisma/client.js";
import type { PreparedStatements } from "./prepared-statements.js";

/**
 * Runs this package's hand-written SQL, on the pool or in a transaction: every statement a table
 * writes itself goes through one of these. `operation` names the statement in traces (as
 * OpenTelemetry's database conventions: `SELECT projects`). Failures are mapped, in and out of
 * transactions alike, by the edge that wraps every query (`database-edge.ts`).
 */
export interface SqlRunner {
  /** Runs `statement` and resolves with its rows. */
  rows<Row>(operation: string, statement: Prisma.Sql): Promise<Row[]>;
  /** Runs `statement` and resolves with the number of rows it inserted, updated or deleted. */
  count(operation: string, statement: Prisma.Sql): Promise<number>;
}

const tracer = trace.getTracer("@folio/db");

/**
 * Runs statements on `pool` through `pg` itself, outside transactions. The hot ones (a page of
 * projects, a folder's create) are why: Prisma's raw-query pipeline (its client engine, the driver
 * adapter's result conversion, its debug and tracing hooks) cost as much CPU as `pg` did for a
 * 10-row page, measured at 130-180 µs per query. The pool and its timeouts are the same as
 * Prisma's; the span (within a recorded trace) is this package's own, as Prisma's instrumentation
 * only sees Prisma's queries. Statements are prepared by name as `prepared` says.
 */
export function sqlOnPool(pool: pg.Pool, prepared: PreparedStatements): SqlRunner {
  // pg parses the same types as Prisma's raw queries return for these statements' columns: text
  // and uuid as strings, timestamptz as Date, float8 and boolean as themselves, bytea as bytes.
  const unnamed = (statement: Prisma.Sql) => pool.query(statement.text, statement.values as unknown[]);
  const run = (statement: Prisma.Sql) => {
    const name = prepared.nameOf(statement.text);
    if (name === undefined) return unnamed(statement);
    return pool
      .query({ name, text: statement.text, values: statement.values as unknown[] })
      .catch((error: unknown) => {
        if (!prepared.notKept(error)) throw error;
        return unnamed(statement);
      });
  };
  const traced = <T>(operation: string, statement: Prisma.Sql, read: (result: pg.QueryResult) => T) => {
    // Outside a recorded trace (tracing off, or a request not sampled) a span would be dropped:
    // none is made, and the hot path pays nothing for tracing.
    if (trace.getActiveSpan()?.isRecording() !== true) return run(statement).then(read);
    return tracer.startActiveSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: { "db.system.name": "postgresql", "db.query.text": statement.text },
      },
      async (span) => {
        try {
          return read(await run(statement));
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };
  return {
    rows: <Row>(operation: string, statement: Prisma.Sql) =>
      traced(operation, statement, (result) => result.rows as Row[]),
    count: (operation, statement) => traced(operation, statement, (result) => result.rowCount ?? 0),
  };
}

/** Runs statements in a Prisma transaction, on its connection (Prisma's instrumentation traces them). */
export function sqlInTransaction(client: Prisma.TransactionClient): SqlRunner {
  return {
    rows: <Row>(_operation: string, statement: Prisma.Sql) => client.$queryRaw<Row[]>(statement),
    count: (_operation, statement) => client.$executeRaw(statement),
  };
}
