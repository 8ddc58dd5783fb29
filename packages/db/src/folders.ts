import { type Folder, Prisma } from "./gen/prisma/client.js";
import type { SqlRunner } from "./sql-runner.js";

/** A folder to create; ids are the caller's org and user, `nameKey` the name as siblings compare it. */
export interface NewFolder {
  readonly orgId: string;
  readonly name: string;
  readonly nameKey: string;
  readonly parentId: string | null;
  readonly color: string | null;
  readonly visibility: string;
  readonly createdByUserId: string;
}

/** What creating a folder came to: created, or the rule that stopped it. */
export type CreateFolderResult =
  | { readonly kind: "created"; readonly folder: Folder }
  /** The parent does not exist in the folder's org (another org's folder counts as absent). */
  | { readonly kind: "parent-not-found" }
  /** A sibling has the same `nameKey`; `existingId` is that sibling. */
  | { readonly kind: "name-taken"; readonly existingId: string };

/** Folder queries, scoped by org. */
export interface FolderQueries {
  /**
   * Creates a folder unless its parent is missing or a sibling has its name. The unique indexes on
   * `name_key` decide a clash, so the rule holds under concurrency.
   */
  create(folder: NewFolder): Promise<CreateFolderResult>;
}

/** The row the create statement answers with: whether the parent was found, and the folder made. */
interface CreatedRow {
  parent_found: boolean;
  id: string | null;
  org_id: string | null;
  name: string | null;
  name_key: string | null;
  parent_id: string | null;
  color: string | null;
  visibility: string | null;
  created_by_user_id: string | null;
  created_at: Date | null;
}

/** Folder queries, their statements run by `sql` (on the pool, or in a transaction). */
export function folderQueries(sql: SqlRunner): FolderQueries {
  return {
    async create(folder) {
      // One statement checks the parent (in the folder's org) and inserts, so the usual create is
      // one round trip. Prisma's model API needs a query for the parent and another for the insert,
      // and compiles each model query anew, which cost more CPU than the rest of the request.
      // ON CONFLICT DO NOTHING instead of catching the unique violation: a violation would abort
      // the caller's transaction, and the clash is an answer, not a failure.
      const [row] = await sql.rows<CreatedRow>(
        "INSERT folders",
        Prisma.sql`
          WITH parent AS (
            SELECT ${folder.parentId}::uuid IS NULL
              OR EXISTS (SELECT 1 FROM folders WHERE org_id = ${folder.orgId}::uuid AND id = ${folder.parentId}::uuid)
              AS found
          ), inserted AS (
            INSERT INTO folders (org_id, name, name_key, parent_id, color, visibility, created_by_user_id)
            SELECT ${folder.orgId}::uuid, ${folder.name}, ${folder.nameKey}, ${folder.parentId}::uuid,
              ${folder.color}, ${folder.visibility}, ${folder.createdByUserId}::uuid
            FROM parent WHERE parent.found
            ON CONFLICT DO NOTHING
            RETURNING id, org_id, name, name_key, parent_id, color, visibility, created_by_user_id, created_at
          )
          SELECT parent.found AS parent_found, inserted.* FROM parent LEFT JOIN inserted ON true`,
      );
      if (row === undefined || !row.parent_found) return { kind: "parent-not-found" };
      if (row.id !== null) return { kind: "created", folder: toFolder(row) };
      // A sibling holds the name. It committed before the insert skipped, so a new statement (a
      // new snapshot) sees it; the one above may not have.
      const [existing] = await sql.rows<{ id: string }>(
        "SELECT folders",
        Prisma.sql`
          SELECT id FROM folders
          WHERE org_id = ${folder.orgId}::uuid AND name_key = ${folder.nameKey}
            AND ${folder.parentId === null ? Prisma.sql`parent_id IS NULL` : Prisma.sql`parent_id = ${folder.parentId}::uuid`}
          LIMIT 1`,
      );
      if (existing === undefined) throw new Error("folder insert skipped but no sibling has its name");
      return { kind: "name-taken", existingId: existing.id };
    },
  };
}

function toFolder(row: CreatedRow): Folder {
  return {
    id: row.id as string,
    orgId: row.org_id as string,
    name: row.name as string,
    nameKey: row.name_key as string,
    parentId: row.parent_id,
    color: row.color,
    visibility: row.visibility as string,
    createdByUserId: row.created_by_user_id as string,
    createdAt: row.created_at as Date,
  };
}
