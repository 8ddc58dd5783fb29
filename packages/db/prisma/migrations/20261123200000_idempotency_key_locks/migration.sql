-- A request running with an idempotency key now holds a transaction-scoped advisory lock on it
-- instead of a row with a lease: PostgreSQL releases the lock the moment that request's
-- connection ends, so a retry after a crash never waits for a lease. A row is written only with
-- the response it remembers.
DELETE FROM "idempotency_keys" WHERE "response" IS NULL;
ALTER TABLE "idempotency_keys" DROP COLUMN "locked_until";
ALTER TABLE "idempotency_keys" ALTER COLUMN "response" SET NOT NULL;
