import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@folio/auth";
import type { Db, Folder } from "@folio/db";
import {
  type CreateFolderResponse,
  CreateFolderResponseSchema,
  ErrorInfoSchema,
  FolderSchema,
  type FolderService,
} from "@folio/proto";
import { fingerprint, type Idempotency, type IdempotencyScope } from "../idempotency.js";
import { type ValidCreateFolder, validateCreateFolder } from "./create-folder-request.js";
import { isUniqueViolation } from "./database-errors.js";

/** Visibility of every folder in v1. */
const PRIVATE = "private";

/** The domain of the reasons in google.rpc.ErrorInfo details (AIP-193). */
const ERROR_DOMAIN = "folio.v1";

/**
 * FolderService backed by the `folders` table; every query is scoped by the caller's org. The
 * checks run in the order the proto documents: validation, idempotency key, parent, name clash.
 */
export function createFolderService(db: Db, idempotency: Idempotency): ServiceImpl<typeof FolderService> {
  return {
    async createFolder(request, context) {
      const caller = requireCaller(context);
      const folder = validateCreateFolder(request, context.requestHeader);
      if (folder.idempotencyKey === undefined) {
        return createFolder(db, caller, folder);
      }
      const scope: IdempotencyScope = {
        orgId: caller.orgId,
        userId: caller.userId,
        operation: "folio.v1.FolderService/CreateFolder",
        key: folder.idempotencyKey,
      };
      const claim = await idempotency.claim(
        scope,
        fingerprint({ name: folder.name, parentId: folder.parentId, color: folder.color }),
      );
      switch (claim.kind) {
        case "replay":
          return fromBinary(CreateFolderResponseSchema, claim.response);
        case "in-progress": {
          const error = errorWithReason(
            Code.Aborted,
            "a request with this idempotency key is still running; retry it shortly",
            "REQUEST_IN_PROGRESS",
          );
          error.metadata.set("retry-after", "1");
          throw error;
        }
        case "mismatch":
          throw errorWithReason(
            Code.AlreadyExists,
            "this idempotency key was used with a different request",
            "IDEMPOTENCY_KEY_REUSED",
          );
      }
      try {
        return await createFolder(db, caller, folder, (tx, response) =>
          idempotency.complete(tx, scope, response),
        );
      } catch (error) {
        // Only a created folder is remembered: a failed request may be retried with its key.
        await idempotency.release(scope);
        throw error;
      }
    },
  };
}

type Tx = Parameters<Parameters<Db["prisma"]["$transaction"]>[0]>[0];

async function createFolder(
  db: Db,
  caller: { orgId: string; userId: string },
  folder: ValidCreateFolder,
  remember?: (tx: Tx, response: Uint8Array) => Promise<void>,
): Promise<CreateFolderResponse> {
  try {
    return await db.prisma.$transaction(async (tx) => {
      if (folder.parentId !== null) {
        // Another org's folder is as absent as a missing one: its id leaks nothing.
        const parent = await tx.folder.findUnique({
          where: { orgId_id: { orgId: caller.orgId, id: folder.parentId } },
          select: { id: true },
        });
        if (parent === null) throw new ConnectError("parent folder not found", Code.NotFound);
      }
      const row = await tx.folder.create({
        data: {
          orgId: caller.orgId,
          name: folder.name,
          nameKey: folder.nameKey,
          parentId: folder.parentId,
          color: folder.color,
          visibility: PRIVATE,
          createdByUserId: caller.userId,
        },
      });
      const response = create(CreateFolderResponseSchema, { folder: toMessage(row) });
      await remember?.(tx, toBinary(CreateFolderResponseSchema, response));
      return response;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      // The unique index decided, so this holds under concurrency too.
      const existing = await db.prisma.folder.findFirst({
        where: { orgId: caller.orgId, parentId: folder.parentId, nameKey: folder.nameKey },
        select: { id: true },
      });
      throw errorWithReason(
        Code.AlreadyExists,
        `a folder named "${folder.name}" already exists in this parent`,
        "FOLDER_NAME_TAKEN",
        existing ? { folderId: existing.id } : {},
      );
    }
    throw error;
  }
}

function errorWithReason(
  code: Code,
  message: string,
  reason: string,
  metadata: Record<string, string> = {},
): ConnectError {
  return new ConnectError(message, code, undefined, [
    { desc: ErrorInfoSchema, value: { reason, domain: ERROR_DOMAIN, metadata } },
  ]);
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
