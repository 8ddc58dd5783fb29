// ListProjects and CreateFolder as grpc-js unary handlers, with the semantics of the REST
// baselines (baseline/): the same token checks, scopes, validation, queries and pool, the request
// message coming from protobuf instead of a query string or JSON body. Order of checks as in Folio:
// decoding, authentication, scope, validation, then the database.

import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type CreateFolderRequestSchema,
  type CreateFolderResponse,
  CreateFolderResponseSchema,
  type Folder,
  FolderSchema,
  type ListProjectsRequestSchema,
  type ListProjectsResponse,
  ListProjectsResponseSchema,
  type Project,
  ProjectSchema,
} from "@folio/proto";
import { type handleUnaryCall, Metadata, type ServerUnaryCall } from "@grpc/grpc-js";
import { createAuthenticate } from "../baseline/access-token.ts";
import { ApiError } from "../baseline/api-error.ts";
import type { BaselineConfig } from "../baseline/config.ts";
import { type FolderRow, insertFolder } from "../baseline/create-folder.ts";
import { createPool, databaseFailure } from "../baseline/database.ts";
import { validateFolder } from "../baseline/folder-rules.ts";
import { type ProjectRow, projectRows } from "../baseline/list-projects.ts";
import { validateListProjectsQuery } from "../baseline/list-projects-query.ts";
import { createPageTokens } from "../baseline/page-token.ts";
import { requestIdFor } from "../baseline/request-id.ts";
import { type Incoming, Undecodable } from "./service-definition.ts";
import { grpcError, undecodable } from "./status.ts";

type ListProjectsCall = Incoming<typeof ListProjectsRequestSchema>;
type CreateFolderCall = Incoming<typeof CreateFolderRequestSchema>;

/** The two methods of the grpc-js service, and how to release its pool. */
export interface GrpcPeer {
  readonly listProjects: handleUnaryCall<ListProjectsCall, ListProjectsResponse>;
  readonly createFolder: handleUnaryCall<CreateFolderCall, CreateFolderResponse>;
  close(): Promise<void>;
}

/** The grpc-js service's handlers on a pool of `config.poolSize` connections. */
export function createGrpcPeer(config: BaselineConfig): GrpcPeer {
  const pool = createPool(config.databaseUrl, config.poolSize);
  const pageTokens = createPageTokens(config.pageTokenSecret);
  const authenticate = createAuthenticate(config);

  return {
    listProjects: unary(async (request, metadata) => {
      if (request instanceof Undecodable) throw undecodable(request.message);
      const caller = await authenticate(text(metadata, "authorization"), "project:read");
      const query = {
        pageSize: request.pageSize,
        pageToken: request.pageToken,
        namePrefix: request.namePrefix,
        city: request.city,
        country: request.country,
        postalCode: request.postalCode,
      };
      validateListProjectsQuery(query);
      const page = await projectRows(pool, pageTokens, caller.orgId, query);
      return create(ListProjectsResponseSchema, {
        projects: page.rows.map(projectMessage),
        nextPageToken: page.nextPageToken ?? "",
      });
    }),

    createFolder: unary(async (request, metadata) => {
      if (request instanceof Undecodable) throw undecodable(request.message);
      const caller = await authenticate(text(metadata, "authorization"), "files:upload");
      const folder = validateFolder(
        {
          name: request.name,
          parentId: request.parentId,
          color: request.color,
          requestId: request.requestId,
        },
        text(metadata, "idempotency-key"),
      );
      if (folder.idempotencyKey !== undefined) {
        // As in the REST baselines: not part of the comparison (its workload sends no key), so
        // refused rather than ignored.
        throw new ApiError("unimplemented", "idempotency keys are not implemented by this baseline service");
      }
      return create(CreateFolderResponseSchema, {
        folder: folderMessage(await insertFolder(pool, caller, folder)),
      });
    }),

    close: () => pool.end(),
  };
}

/**
 * A grpc-js unary handler around `method`: the request id (the caller's `x-request-id` when it is
 * a plain token) in the response headers, as Folio sends it on every protocol; a failure as a
 * gRPC status (database failures as Folio maps them, anything unexpected `internal`).
 */
function unary<Request, Response>(
  method: (request: Request, metadata: Metadata) => Promise<Response>,
): handleUnaryCall<Request, Response> {
  return (call: ServerUnaryCall<Request, Response>, callback) => {
    const requestId = requestIdFor(text(call.metadata, "x-request-id"));
    method(call.request, call.metadata).then(
      (response) => {
        const headers = new Metadata();
        headers.set("x-request-id", requestId);
        call.sendMetadata(headers);
        callback(null, response);
      },
      (error: unknown) => {
        let apiError = error instanceof ApiError ? error : databaseFailure(error);
        if (apiError === undefined) {
          console.error(`request ${requestId} failed:`, error);
          apiError = new ApiError("internal", `internal error (request id ${requestId})`);
        }
        callback(grpcError(apiError, requestId));
      },
    );
  };
}

/** The first value of a text metadata key, as an HTTP framework gives a header. */
function text(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === "string" ? value : undefined;
}

/** A project row as Folio's ListProjects writes it: absent parts of the address unset. */
function projectMessage(row: ProjectRow): Project {
  return create(ProjectSchema, {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    street: row.street ?? undefined,
    houseNumber: row.house_number ?? undefined,
    postalCode: row.postal_code ?? undefined,
    city: row.city ?? undefined,
    country: row.country ?? undefined,
    createdAt: timestampFromDate(row.created_at),
  });
}

/** A folder row as Folio's CreateFolder writes it. */
function folderMessage(row: FolderRow): Folder {
  return create(FolderSchema, {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    parentId: row.parent_id ?? undefined,
    color: row.color ?? undefined,
    visibility: row.visibility,
    createdByUserId: row.created_by_user_id,
    createdAt: timestampFromDate(row.created_at),
  });
}
