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

/** One page of the folders of one parent (or of the top level) of an org, in `(name, id)` order. */
export interface FolderPageQuery {
  readonly orgId: string;
  /** The folder whose folders to list; null: the top-level folders. */
  readonly parentId: string | null;
  /** Start after this folder (keyset paging); absent: from the first. */
  readonly after?: { readonly name: string; readonly id: string };
  readonly limit: number;
}

/** What reading a page of folders came to: the page, or the parent's absence. */
export type FolderPageResult =
  | { readonly kind: "page"; readonly folders: Folder[] }
  /** The parent does not exist in the org (another org's folder counts as absent). */
  | { readonly kind: "parent-not-found" };

/** Folder queries, scoped by org. */
export interface FolderQueries {
  /**
   * Creates a folder unless its parent is missing or a sibling has its name. The unique indexes on
   * `name_key` decide a clash, so the rule holds under concurrency.
   */
  create(folder: NewFolder): Promise<CreateFolderResult>;
  /** The folder of the org with this id; undefined when there is none (another org's counts as none). */
  get(orgId: string, id: string): Promise<Folder | undefined>;
  /**
   * Up to `limit` folders of the parent in `(name, id)` order, after `after`. The row comparison
   * `(name, id) > (...)` is served by the `(org_id, parent_id, name, id)` index, so a deep page
   * costs what the first does.
   */
  page(query: FolderPageQuery): Promise<FolderPageResult>;
}

/** A folder's columns, each named as its field of `Folder`, so that the rows are the folders. */
const FOLDER_COLUMNS = Prisma.sql`id, org_id AS "orgId", name, name_key AS "nameKey", parent_id AS "parentId",
  color, visibility, created_by_user_id AS "createdByUserId", created_at AS "createdAt"`;

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
    async get(orgId, id) {
      const [folder] = await sql.rows<Folder>(
        "SELECT folders",
        Prisma.sql`SELECT ${FOLDER_COLUMNS} FROM folders WHERE org_id = ${orgId}::uuid AND id = ${id}::uuid`,
      );
      return folder;
    },
    async page(query) {
      const conditions = [
        Prisma.sql`org_id = ${query.orgId}::uuid`,
        query.parentId === null
          ? Prisma.sql`parent_id IS NULL`
          : Prisma.sql`parent_id = ${query.parentId}::uuid`,
      ];
      if (query.after) {
        conditions.push(Prisma.sql`(name, id) > (${query.after.name}, ${query.after.id}::uuid)`);
      }
      // ORDER BY parent_id first, though a page has one parent: the planner takes `parent_id IS
      // NULL` for a filter, not for an equality, and reads the index in order without a sort only
      // when the ORDER BY follows the index's columns from there.
      const folders = await sql.rows<Folder>(
        "SELECT folders",
        Prisma.sql`
          SELECT ${FOLDER_COLUMNS} FROM folders
          WHERE ${Prisma.join(conditions, " AND ")}
          ORDER BY parent_id, name, id
          LIMIT ${query.limit}`,
      );
      // A folder's children share its org (the composite foreign key), so a page with rows has a
      // parent; only an empty page asks whether the parent exists.
      if (folders.length > 0 || query.parentId === null) return { kind: "page", folders };
      const [parent] = await sql.rows<{ found: boolean }>(
        "SELECT folders",
        Prisma.sql`
          SELECT EXISTS (
            SELECT 1 FROM folders WHERE org_id = ${query.orgId}::uuid AND id = ${query.parentId}::uuid
          ) AS found`,
      );
      return parent?.found === true ? { kind: "page", folders } : { kind: "parent-not-found" };
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
