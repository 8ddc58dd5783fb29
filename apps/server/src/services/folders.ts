import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@folio/auth";
import type { Db, Folder } from "@folio/db";
import { CreateFolderResponseSchema, FolderSchema, type FolderService } from "@folio/proto";
import { isForeignKeyViolation, isUuid } from "./database-errors.js";

/** Visibility of every folder in v1. */
const PRIVATE = "private";

/** FolderService backed by the `folders` table; every query is scoped by the caller's org. */
export function createFolderService(db: Db): ServiceImpl<typeof FolderService> {
  return {
    async createFolder(request, context) {
      const caller = requireCaller(context);
      const name = request.name.normalize("NFC").trim();
      if (name === "") {
        throw new ConnectError("name must not be empty", Code.InvalidArgument);
      }
      if (request.parentId !== undefined && !isUuid(request.parentId)) {
        throw new ConnectError("parentId must be a UUID", Code.InvalidArgument);
      }
      try {
        const folder = await db.prisma.folder.create({
          data: {
            orgId: caller.orgId,
            name,
            parentId: request.parentId?.toLowerCase() ?? null,
            color: request.color ?? null,
            visibility: PRIVATE,
            createdByUserId: caller.userId,
          },
        });
        return create(CreateFolderResponseSchema, { folder: toMessage(folder) });
      } catch (error) {
        // The composite foreign key (org_id, parent_id) fails alike for a missing parent and for
        // another org's folder: both are "not found", so other orgs' ids leak nothing.
        if (isForeignKeyViolation(error)) {
          throw new ConnectError("parent folder not found", Code.NotFound);
        }
        throw error;
      }
    },
  };
}

function toMessage(folder: Folder) {
  return create(FolderSchema, {
    id: folder.id,
    orgId: folder.orgId,
    name: folder.name,
    parentId: folder.parentId ?? undefined,
    color: folder.color ?? undefined,
    visibility: folder.visibility,
    createdByUserId: folder.createdByUserId,
    createdAt: timestampFromDate(folder.createdAt),
  });
}
