import type { Folder, Prisma } from "./gen/prisma/client.js";

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

/** Folder queries on `client` (the pool, or a transaction). */
export function folderQueries(client: Prisma.TransactionClient): FolderQueries {
  return {
    async create(folder) {
      if (folder.parentId !== null) {
        const parent = await client.folder.findUnique({
          where: { orgId_id: { orgId: folder.orgId, id: folder.parentId } },
          select: { id: true },
        });
        if (parent === null) return { kind: "parent-not-found" };
      }
      // ON CONFLICT DO NOTHING (skipDuplicates) instead of catching the unique violation: a
      // violation would abort the caller's transaction, and the clash is an answer, not a failure.
      const [created] = await client.folder.createManyAndReturn({ data: [folder], skipDuplicates: true });
      if (created !== undefined) return { kind: "created", folder: created };
      const existing = await client.folder.findFirst({
        where: { orgId: folder.orgId, parentId: folder.parentId, nameKey: folder.nameKey },
        select: { id: true },
      });
      // The clashing sibling committed before the insert skipped, so it is visible now.
      if (existing === null) throw new Error("folder insert skipped but no sibling has its name");
      return { kind: "name-taken", existingId: existing.id };
    },
  };
}
