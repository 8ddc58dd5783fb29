-- CreateTable
CREATE TABLE "folders" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "parent_id" UUID,
    "color" TEXT,
    "visibility" TEXT NOT NULL DEFAULT 'private',
    "created_by_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "folders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "street" TEXT,
    "house_number" TEXT,
    "postal_code" TEXT,
    "city" TEXT,
    "country" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "folders_org_id_parent_id_idx" ON "folders"("org_id", "parent_id");

-- CreateIndex
CREATE UNIQUE INDEX "folders_org_id_id_key" ON "folders"("org_id", "id");

-- CreateIndex
CREATE INDEX "projects_org_id_name_id_idx" ON "projects"("org_id", "name", "id");

-- AddForeignKey
ALTER TABLE "folders" ADD CONSTRAINT "folders_org_id_parent_id_fkey" FOREIGN KEY ("org_id", "parent_id") REFERENCES "folders"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
