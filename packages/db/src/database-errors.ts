/**
 * Database failures the callers of this package can act on. Everything a query can throw is
 * either one of these or a bug: callers never inspect Prisma's or pg's errors themselves.
 */

/**
 * The database cannot serve the query now: unreachable, restarting, out of connections, or the
 * query ran past a timeout. Retrying later may succeed; nothing was written.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
  constructor(
    message: string,
    /**
     * What ran out: the connection, the wait for a connection, a statement or lock timeout; or
     * `read-only`: the connection reached a server that cannot write (a standby, a demoted primary).
     */
    readonly reason: "unreachable" | "pool-timeout" | "statement-timeout" | "lock-timeout" | "read-only",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** SQLSTATE codes (PostgreSQL appendix A) this package maps. */
const SQLSTATE = {
  uniqueViolation: "23505",
  foreignKeyViolation: "23503",
  queryCanceled: "57014",
  lockNotAvailable: "55P03",
  adminShutdown: "57P01",
  crashShutdown: "57P02",
  cannotConnectNow: "57P03",
  tooManyConnections: "53300",
  readOnlySqlTransaction: "25006",
} as const;

/** True for SQLSTATE 25006: a write reached a server in recovery or with transaction_read_only on. */
export function isReadOnlySqlState(code: string | undefined): boolean {
  return code === SQLSTATE.readOnlySqlTransaction;
}

/** Error codes of Node's sockets that mean the server is gone or unreachable. */
const SOCKET_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
]);

/** Prisma error codes (https://www.prisma.io/docs/orm/reference/error-reference) of the same kind. */
const PRISMA_UNAVAILABLE = new Set([
  "P1001", // can't reach database server
  "P1002", // database server timed out
  "P1008", // operations timed out
  "P1017", // server has closed the connection
  "P2024", // timed out fetching a connection from the pool
  "P2028", // transaction API error (could not start or finish a transaction in time)
  "P2037", // too many database connections opened
]);

/** What a failed query says about itself, read through Prisma's and the driver's wrappers. */
interface Described {
  readonly prismaCode: string | undefined;
  readonly sqlState: string | undefined;
  readonly kind: string | undefined;
  readonly message: string;
}

function describe(error: unknown): Described {
  const seen = new Set<unknown>();
  let prismaCode: string | undefined;
  let sqlState: string | undefined;
  let kind: string | undefined;
  // Prisma wraps the driver adapter's error (meta.driverAdapterError.cause), which wraps pg's.
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== "object" || current === null || seen.has(current)) continue;
    seen.add(current);
    const record = current as Record<string, unknown>;
    const code = typeof record.code === "string" ? record.code : undefined;
    if (code?.startsWith("P") && /^P\d{4}$/.test(code)) prismaCode ??= code;
    else if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) sqlState ??= code;
    else if (code !== undefined && SOCKET_ERRORS.has(code)) kind ??= "DatabaseNotReachable";
    if (typeof record.originalCode === "string") sqlState ??= record.originalCode;
    if (typeof record.kind === "string") kind ??= record.kind;
    queue.push(record.cause, record.meta, record.driverAdapterError);
  }
  return {
    prismaCode,
    sqlState,
    kind,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** True when the query failed on a unique index. */
export function isUniqueViolation(error: unknown): boolean {
  const { prismaCode, sqlState, kind } = describe(error);
  return (
    prismaCode === "P2002" || sqlState === SQLSTATE.uniqueViolation || kind === "UniqueConstraintViolation"
  );
}

/** True when the query failed on a foreign key. */
export function isForeignKeyViolation(error: unknown): boolean {
  const { prismaCode, sqlState, kind } = describe(error);
  return (
    prismaCode === "P2003" ||
    sqlState === SQLSTATE.foreignKeyViolation ||
    kind === "ForeignKeyConstraintViolation"
  );
}

/**
 * The {@link DatabaseUnavailableError} a failure amounts to, or `undefined` when it is not one
 * (a bug, a constraint the caller handles).
 */
export function asUnavailable(error: unknown): DatabaseUnavailableError | undefined {
  if (error instanceof DatabaseUnavailableError) return error;
  const { prismaCode, sqlState, kind, message } = describe(error);
  if (isReadOnlySqlState(sqlState) || /read-only transaction/i.test(message)) {
    // A stale route (DNS, virtual IP, proxy rule) to a demoted primary: once the route reaches the
    // new primary, the retry succeeds. Nothing was written.
    return new DatabaseUnavailableError("the database server is read-only", "read-only", { cause: error });
  }
  if (sqlState === SQLSTATE.lockNotAvailable) {
    return new DatabaseUnavailableError("a lock was not granted in time", "lock-timeout", { cause: error });
  }
  if (sqlState === SQLSTATE.queryCanceled || /Query read timeout/i.test(message)) {
    return new DatabaseUnavailableError("a statement ran past its timeout", "statement-timeout", {
      cause: error,
    });
  }
  if (
    /timeout exceeded when trying to connect/i.test(message) ||
    prismaCode === "P2024" ||
    prismaCode === "P2028"
  ) {
    return new DatabaseUnavailableError("no database connection was free in time", "pool-timeout", {
      cause: error,
    });
  }
  const connectionLost =
    (prismaCode !== undefined && PRISMA_UNAVAILABLE.has(prismaCode)) ||
    sqlState === SQLSTATE.adminShutdown ||
    sqlState === SQLSTATE.crashShutdown ||
    sqlState === SQLSTATE.cannotConnectNow ||
    sqlState === SQLSTATE.tooManyConnections ||
    sqlState?.startsWith("08") === true || // connection exception class
    kind === "DatabaseNotReachable" ||
    kind === "ConnectionClosed" ||
    kind === "SocketTimeout" ||
    kind === "TooManyConnections" ||
    /Connection terminated|connection is closed|Client has encountered a connection error|terminating connection/i.test(
      message,
    );
  if (connectionLost) {
    return new DatabaseUnavailableError("the database is unreachable", "unreachable", { cause: error });
  }
  return undefined;
}

/** Rethrows a failure as {@link DatabaseUnavailableError} when it is one, else unchanged. */
export function rethrowMapped(error: unknown): never {
  throw asUnavailable(error) ?? error;
}
