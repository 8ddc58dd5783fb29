import { Prisma } from "./gen/prisma/client.js";
import type { SqlRunner } from "./sql-runner.js";

/** Who used a key, for what: keys are scoped to (org, user, operation). */
export interface IdempotencyScope {
  readonly orgId: string;
  readonly userId: string;
  readonly operation: string;
  readonly key: string;
}

/** The remembered outcome of a request made with a key. */
export interface RememberedRequest {
  /** Digest of the request, to tell a retry from a different request under the same key. */
  readonly requestHash: string;
  /** The response it was answered with, serialized by the caller. */
  readonly response: Uint8Array;
}

/** Idempotency keys, kept in PostgreSQL so that every instance sees them. */
export interface IdempotencyKeyQueries {
  /**
   * Takes the key's lock for the rest of the transaction; false when another transaction holds it
   * (a request with the key is running). The lock is PostgreSQL's, so a request whose server died
   * loses it with its connection at once: a retry never waits for a lease to run out.
   */
  lock(scope: IdempotencyScope): Promise<boolean>;
  /**
   * The unexpired request remembered under the key, as committed when the query runs (the
   * transaction is READ COMMITTED): a replay needs no {@link lock}, a first attempt looks again
   * once it holds it.
   */
  find(scope: IdempotencyScope): Promise<RememberedRequest | undefined>;
  /** Remembers a completed request for `ttlSeconds`, in the transaction that made its changes. */
  remember(scope: IdempotencyScope, request: RememberedRequest, ttlSeconds: number): Promise<void>;
  /** Deletes expired keys; returns how many. */
  purgeExpired(): Promise<number>;
}

/**
 * Idempotency-key queries, run by `sql` (in a transaction for all but purgeExpired). They are SQL
 * because expiry is computed and compared with the database's `now()`, which Prisma's model API
 * cannot express.
 */
export function idempotencyKeyQueries(sql: SqlRunner): IdempotencyKeyQueries {
  return {
    async lock(scope) {
      // Advisory locks take a 64-bit key: the scope's hash. A collision of two scopes only makes
      // one wait for the other, never mixes their rows.
      const [row] = await sql.rows<{ locked: boolean }>(
        "SELECT pg_try_advisory_xact_lock",
        Prisma.sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${lockName(scope)}, 0)) AS locked`,
      );
      return row?.locked === true;
    },
    async find(scope) {
      // Expiry is judged by the database's clock, the one that wrote it, not the app's.
      const [row] = await sql.rows<{ request_hash: string; response: Uint8Array }>(
        "SELECT idempotency_keys",
        Prisma.sql`
          SELECT request_hash, response FROM idempotency_keys
          WHERE org_id = ${scope.orgId}::uuid AND user_id = ${scope.userId}::uuid
            AND operation = ${scope.operation} AND key = ${scope.key} AND expires_at > now()`,
      );
      return row === undefined
        ? undefined
        : { requestHash: row.request_hash, response: new Uint8Array(row.response) };
    },
    async remember(scope, request, ttlSeconds) {
      // An expired row of the same key may still be there (it is purged hourly): replace it.
      await sql.count(
        "INSERT idempotency_keys",
        Prisma.sql`
          INSERT INTO idempotency_keys (org_id, user_id, operation, key, request_hash, response, created_at, expires_at)
          VALUES (${scope.orgId}::uuid, ${scope.userId}::uuid, ${scope.operation}, ${scope.key},
                  ${request.requestHash}, ${Buffer.from(request.response)}, now(), now() + make_interval(secs => ${ttlSeconds}))
          ON CONFLICT (org_id, user_id, operation, key) DO UPDATE
            SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response,
                created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
      );
    },
    async purgeExpired() {
      return sql.count(
        "DELETE idempotency_keys",
        Prisma.sql`DELETE FROM idempotency_keys WHERE expires_at <= now()`,
      );
    },
  };
}

function lockName(scope: IdempotencyScope): string {
  return JSON.stringify(["idempotency-key", scope.orgId, scope.userId, scope.operation, scope.key]);
}
