import { createHash } from "node:crypto";
import type { Db } from "@folio/db";

/** How long a key is remembered after its first use. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a request keeps its key while running. A create takes milliseconds; a key still held
 * after this long belongs to a request whose server died midway, and a retry may take it over.
 */
const LEASE_SECONDS = 60;

/** Who used a key, for what: keys are scoped to (org, user, operation). */
export interface IdempotencyScope {
  readonly orgId: string;
  readonly userId: string;
  readonly operation: string;
  readonly key: string;
}

/** What a request with an idempotency key should do. */
export type Claim =
  /** The key is new (or expired): run the request, then {@link Idempotency.complete} it. */
  | { readonly kind: "claimed" }
  /** The same request completed before: answer with its response. */
  | { readonly kind: "replay"; readonly response: Uint8Array }
  /** The same request is still running. */
  | { readonly kind: "in-progress" }
  /** The key was used with a different request. */
  | { readonly kind: "mismatch" };

/** The transaction a completed request stores its response in, with its other writes. */
export interface Transaction {
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number>;
}

/** Idempotency keys stored in the `idempotency_keys` table, so every server instance sees them. */
export interface Idempotency {
  /** Claims the key for a request identified by `fingerprint`, or says why not. */
  claim(scope: IdempotencyScope, fingerprint: string): Promise<Claim>;
  /** Stores the response of a claimed key, in the transaction that made the request's changes. */
  complete(tx: Transaction, scope: IdempotencyScope, response: Uint8Array): Promise<void>;
  /** Gives a claimed key up after the request failed: a retry runs the request again. */
  release(scope: IdempotencyScope): Promise<void>;
  /** Deletes expired keys; returns how many. */
  purgeExpired(): Promise<number>;
}

/** A stable digest of a request, to tell a retry from a different request under the same key. */
export function fingerprint(request: unknown): string {
  return createHash("sha256").update(JSON.stringify(request)).digest("hex");
}

/** Idempotency keys in the database of `db`. */
export function createIdempotency(db: Db): Idempotency {
  const prisma = db.prisma;
  return {
    async claim(scope, requestHash) {
      // One statement, so concurrent claims of one key serialise on its primary key: the first
      // inserts; the others see its row. An expired key, or one whose lease ran out before a
      // response was stored, is taken over.
      const claimed = await prisma.$queryRaw<{ claimed: boolean }[]>`
        INSERT INTO idempotency_keys (org_id, user_id, operation, key, request_hash, locked_until, expires_at)
        VALUES (${scope.orgId}::uuid, ${scope.userId}::uuid, ${scope.operation}, ${scope.key}, ${requestHash},
                now() + make_interval(secs => ${LEASE_SECONDS}),
                now() + make_interval(secs => ${IDEMPOTENCY_KEY_TTL_SECONDS}))
        ON CONFLICT (org_id, user_id, operation, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, response = NULL, locked_until = EXCLUDED.locked_until,
              created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= now()
             OR (idempotency_keys.response IS NULL AND idempotency_keys.locked_until <= now())
        RETURNING true AS claimed`;
      if (claimed.length > 0) return { kind: "claimed" };
      const rows = await prisma.$queryRaw<{ request_hash: string; response: Uint8Array | null }[]>`
        SELECT request_hash, response FROM idempotency_keys
        WHERE org_id = ${scope.orgId}::uuid AND user_id = ${scope.userId}::uuid
          AND operation = ${scope.operation} AND key = ${scope.key}`;
      const row = rows[0];
      if (row === undefined) {
        // Released between the two statements: claim again.
        return this.claim(scope, requestHash);
      }
      if (row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.response === null) return { kind: "in-progress" };
      return { kind: "replay", response: new Uint8Array(row.response) };
    },

    async complete(tx, scope, response) {
      await tx.$executeRaw`
        UPDATE idempotency_keys SET response = ${Buffer.from(response)}, locked_until = NULL
        WHERE org_id = ${scope.orgId}::uuid AND user_id = ${scope.userId}::uuid
          AND operation = ${scope.operation} AND key = ${scope.key}`;
    },

    async release(scope) {
      await prisma.$executeRaw`
        DELETE FROM idempotency_keys
        WHERE org_id = ${scope.orgId}::uuid AND user_id = ${scope.userId}::uuid
          AND operation = ${scope.operation} AND key = ${scope.key} AND response IS NULL`;
    },

    async purgeExpired() {
      return prisma.$executeRaw`DELETE FROM idempotency_keys WHERE expires_at <= now()`;
    },
  };
}
