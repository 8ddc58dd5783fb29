import type pg from "pg";
import type { Caller } from "./access-token.ts";
import { ApiError, errorWithReason } from "./api-error.ts";
import type { ValidFolder } from "./folder-rules.ts";
import { rfc3339 } from "./timestamp.ts";

/** Visibility of every folder in v1, set by the service. */
const PRIVATE = "private";

/** A row of `folders` as the insert returns it. */
export interface FolderRow {
  id: string;
  org_id: string;
  name: string;
  parent_id: string | null;
  color: string | null;
  visibility: string;
  created_by_user_id: string;
  created_at: Date;
}

const RETURNING = "id, org_id, name, parent_id, color, visibility, created_by_user_id, created_at";

/**
 * Creates a folder in the caller's org with Folio's rules and queries: the parent looked up by
 * `(org_id, id)` (another org's folder is as absent as a missing one: 404), then one INSERT ... ON
 * CONFLICT DO NOTHING, so the unique indexes on `name_key` decide a clash under concurrency; a
 * skipped insert is 409 `already_exists` naming the sibling that holds the name. Returns the body
 * of the 201 response.
 */
export async function createFolder(pool: pg.Pool, caller: Caller, folder: ValidFolder): Promise<string> {
  return JSON.stringify({ folder: folderJson(await insertFolder(pool, caller, folder)) });
}

/** Creates the folder as {@link createFolder} does and returns its row, for whichever encoding to write. */
export async function insertFolder(pool: pg.Pool, caller: Caller, folder: ValidFolder): Promise<FolderRow> {
  if (folder.parentId !== null) {
    const parent = await pool.query("SELECT id FROM folders WHERE org_id = $1::uuid AND id = $2::uuid", [
      caller.orgId,
      folder.parentId,
    ]);
    if (parent.rowCount === 0) throw new ApiError("not_found", "parent folder not found");
  }
  const inserted = await pool.query<FolderRow>(
    `INSERT INTO folders (org_id, name, name_key, parent_id, color, visibility, created_by_user_id)
     VALUES ($1::uuid, $2, $3, $4::uuid, $5, $6, $7::uuid)
     ON CONFLICT DO NOTHING
     RETURNING ${RETURNING}`,
    [caller.orgId, folder.name, folder.nameKey, folder.parentId, folder.color, PRIVATE, caller.userId],
  );
  const row = inserted.rows[0];
  if (row !== undefined) return row;
  // Each form matches one of the two partial unique indexes (top level, under a parent).
  const existing =
    folder.parentId === null
      ? await pool.query<{ id: string }>(
          "SELECT id FROM folders WHERE org_id = $1::uuid AND parent_id IS NULL AND name_key = $2 LIMIT 1",
          [caller.orgId, folder.nameKey],
        )
      : await pool.query<{ id: string }>(
          "SELECT id FROM folders WHERE org_id = $1::uuid AND parent_id = $2::uuid AND name_key = $3 LIMIT 1",
          [caller.orgId, folder.parentId, folder.nameKey],
        );
  const existingId = existing.rows[0]?.id;
  // The clashing sibling committed before the insert skipped, so it is visible now.
  if (existingId === undefined) throw new Error("folder insert skipped but no sibling has its name");
  throw errorWithReason(
    "already_exists",
    `a folder named "${folder.name}" already exists in this parent`,
    "FOLDER_NAME_TAKEN",
    { folderId: existingId },
  );
}

/** A folder as Folio's REST responses hold it: every field, in the proto's order, null when absent. */
function folderJson(row: FolderRow) {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    parentId: row.parent_id,
    color: row.color,
    visibility: row.visibility,
    createdByUserId: row.created_by_user_id,
    createdAt: rfc3339(row.created_at),
  };
}
