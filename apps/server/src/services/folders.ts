import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { type Caller, requireCaller } from "@folio/auth";
import type { CreateFolderResult, Db, Folder, NewFolder } from "@folio/db";
import {
  type CreateFolderResponse,
  CreateFolderResponseSchema,
  FolderSchema,
  FolderService,
  GetFolderResponseSchema,
  ListFoldersResponseSchema,
} from "@folio/proto";
import { normaliseCreateFolder, type ValidCreateFolder } from "./create-folder-request.js";
import { errorWithReason } from "./error-details.js";
import { fingerprint, type IdempotencyEvents, type ResponseCodec, runOnce } from "./idempotency.js";
import { keysetListing } from "./keyset-listing.js";
import type { PageTokens } from "./page-token.js";

/** Visibility of every folder in v1. */
const PRIVATE = "private";

const OPERATION = "folio.v1.FolderService/CreateFolder";

const responseCodec: ResponseCodec<CreateFolderResponse> = {
  encode: (response) => toBinary(CreateFolderResponseSchema, response),
  decode: (bytes) => fromBinary(CreateFolderResponseSchema, bytes),
};

/**
 * FolderService: the checks run in the order the proto documents (the request was validated
 * before it got here, by the validation interceptor; then idempotency key, parent, name clash);
 * every query is scoped by the caller's org. A folder is private to its org: every caller of the
 * org with the scope reads every folder of it, and another org's folder is not found.
 */
export function createFolderService(
  db: Db,
  pageTokens: PageTokens,
  idempotencyEvents?: IdempotencyEvents,
): ServiceImpl<typeof FolderService> {
  const listing = keysetListing(
    FolderService.method.listFolders,
    { name: "string", id: "string" },
    pageTokens,
  );
  return {
    async getFolder(request, context) {
      const caller = requireCaller(context);
      const folder = await db.folders.get(caller.orgId, request.id);
      // Another org's folder is as absent as a missing one: its id leaks nothing.
      if (folder === undefined) throw new ConnectError("folder not found", Code.NotFound);
      return create(GetFolderResponseSchema, { folder: toMessage(folder) });
    },
    async listFolders(request, context) {
      const caller = requireCaller(context);
      const { after, limit, answer } = listing.pageOf(request, caller.orgId);
      const result = await db.folders.page({
        orgId: caller.orgId,
        parentId: request.parentId ?? null,
        ...(after === undefined ? {} : { after }),
        limit,
      });
      if (result.kind === "parent-not-found") {
        // As CreateFolder's: another org's parent is as absent as a missing one.
        throw new ConnectError("parent folder not found", Code.NotFound);
      }
      const { page, nextPageToken } = answer(result.folders);
      return create(ListFoldersResponseSchema, { folders: page.map(toMessage), nextPageToken });
    },
    async createFolder(request, context) {
      const caller = requireCaller(context);
      const folder = normaliseCreateFolder(request, context.requestHeader);
      const row = newFolder(caller, folder);
      if (folder.idempotencyKey === undefined) {
        return answer(await db.folders.create(row), folder);
      }
      const scope = {
        orgId: caller.orgId,
        userId: caller.userId,
        operation: OPERATION,
        key: folder.idempotencyKey,
      };
      const requestHash = fingerprint({ name: folder.name, parentId: folder.parentId, color: folder.color });
      // The folder and the remembered response commit together, or neither does.
      return db.transaction((tx) =>
        runOnce(
          tx,
          scope,
          requestHash,
          responseCodec,
          async () => answer(await tx.folders.create(row), folder),
          idempotencyEvents,
        ),
      );
    },
  };
}

function newFolder(caller: Caller, folder: ValidCreateFolder): NewFolder {
  return {
    orgId: caller.orgId,
    name: folder.name,
    nameKey: folder.nameKey,
    parentId: folder.parentId,
    color: folder.color,
    visibility: PRIVATE,
    createdByUserId: caller.userId,
  };
}

/** The response for a created folder, or the error the client sees for the rule that stopped it. */
function answer(result: CreateFolderResult, folder: ValidCreateFolder): CreateFolderResponse {
  switch (result.kind) {
    case "created":
      return create(CreateFolderResponseSchema, { folder: toMessage(result.folder) });
    case "parent-not-found":
      // Another org's folder is as absent as a missing one: its id leaks nothing.
      throw new ConnectError("parent folder not found", Code.NotFound);
    case "name-taken":
      throw errorWithReason(
        Code.AlreadyExists,
        `a folder named "${folder.name}" already exists in this parent`,
        "FOLDER_NAME_TAKEN",
        { folderId: result.existingId },
      );
  }
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
