-- Serves ListFolders' pages: WHERE org_id = $1 AND parent_id = $2 (or IS NULL) AND (name, id) > (...)
-- ORDER BY parent_id, name, id, read in index order with no sort. It replaces the index on
-- (org_id, parent_id), which is its prefix: lookups by parent, and the composite foreign key's
-- check of children, use the new one.
DROP INDEX "folders_org_id_parent_id_idx";

-- CreateIndex
CREATE INDEX "folders_org_id_parent_id_name_id_idx" ON "folders"("org_id", "parent_id", "name", "id");
