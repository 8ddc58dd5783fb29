-- Sibling folder names are unique per parent, compared case-insensitively. The comparison key is
-- computed by the application (Unicode case folding, which lower() under the "C" collation of the
-- embedded database does not do); the unique indexes make the rule hold under concurrency.
ALTER TABLE "folders" ADD COLUMN "name_key" TEXT;
UPDATE "folders" SET "name_key" = lower("name");
ALTER TABLE "folders" ALTER COLUMN "name_key" SET NOT NULL;

-- Two partial indexes rather than one with NULLS NOT DISTINCT (PostgreSQL 15+): top-level folders
-- have no parent, and NULLs are otherwise distinct in a unique index.
CREATE UNIQUE INDEX "folders_org_id_parent_id_name_key_key" ON "folders"("org_id", "parent_id", "name_key") WHERE "parent_id" IS NOT NULL;
CREATE UNIQUE INDEX "folders_org_id_top_level_name_key_key" ON "folders"("org_id", "name_key") WHERE "parent_id" IS NULL;

-- Idempotency keys of create requests (Idempotency-Key header / AIP-155 request_id), scoped to
-- (org, user, operation). "response" is NULL while the first request runs; "locked_until" bounds
-- how long a request that died midway keeps its key.
CREATE TABLE "idempotency_keys" (
    "org_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response" BYTEA,
    "locked_until" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("org_id", "user_id", "operation", "key")
);

-- Serves the purge of expired keys.
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");
