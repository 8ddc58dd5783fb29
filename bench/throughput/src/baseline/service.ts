import type { IncomingHttpHeaders } from "node:http";
import { type Authenticate, createAuthenticate } from "./access-token.ts";
import { ApiError, errorBody } from "./api-error.ts";
import type { BaselineConfig } from "./config.ts";
import { createFolder } from "./create-folder.ts";
import { createPool, databaseFailure } from "./database.ts";
import { decodeCreateFolderBody } from "./folder-body.ts";
import { validateFolder } from "./folder-rules.ts";
import { listProjects, nextPageLink } from "./list-projects.ts";
import { parseListProjectsQuery, validateListProjectsQuery } from "./list-projects-query.ts";
import { createPageTokens } from "./page-token.ts";
import { requestIdFor } from "./request-id.ts";

/** An HTTP response, for whichever framework to write. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** `GET /api/v1/projects`: the request's path and query string as sent. */
export interface ListProjectsRequest {
  readonly path: string;
  readonly search: string;
  readonly headers: IncomingHttpHeaders;
}

/** `POST /api/v1/folders`: the body's bytes as received. */
export interface CreateFolderRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: Uint8Array;
}

/**
 * The two operations with Folio's semantics, independent of the HTTP framework: each takes what
 * the framework read of a request and gives the response to write. Order of checks as in Folio:
 * decoding (400/415), authentication (401), scope (403), validation (400), then the database
 * (404, 409). Every response carries `X-Request-Id`; every failure is Folio's error envelope.
 */
export interface BaselineService {
  listProjects(request: ListProjectsRequest): Promise<Reply>;
  createFolder(request: CreateFolderRequest): Promise<Reply>;
  /** The answer to a request no route serves: 404, or 405 for a known path. */
  noRoute(method: string, path: string, headers: IncomingHttpHeaders): Reply;
  /** The answer to a body over the size limit (413), which the framework refuses itself. */
  bodyTooLarge(headers: IncomingHttpHeaders): Reply;
  /** The answer to a failure the framework caught: 500 `internal` with the request id. */
  unexpected(error: unknown, headers: IncomingHttpHeaders): Reply;
  close(): Promise<void>;
}

/** Largest request body, as Folio's `MAX_REQUEST_BODY_BYTES` default. */
export const MAX_BODY_BYTES = 1_048_576;

const JSON_TYPE = "application/json";
const ROUTES: Readonly<Record<string, string>> = { "/api/v1/projects": "GET", "/api/v1/folders": "POST" };

export function createBaselineService(config: BaselineConfig): BaselineService {
  const pool = createPool(config.databaseUrl, config.poolSize);
  const pageTokens = createPageTokens(config.pageTokenSecret);
  const authenticate: Authenticate = createAuthenticate(config);

  const fail = (error: unknown, requestId: string): Reply => {
    let apiError = error instanceof ApiError ? error : databaseFailure(error);
    if (apiError === undefined) {
      console.error(`request ${requestId} failed:`, error);
      apiError = new ApiError("internal", `internal error (request id ${requestId})`);
    }
    return {
      status: apiError.status,
      headers: { ...apiError.headers, "content-type": JSON_TYPE, "x-request-id": requestId },
      body: errorBody(apiError, requestId),
    };
  };

  return {
    async listProjects(request) {
      const requestId = requestIdFor(request.headers["x-request-id"]);
      try {
        refuseContentCoding(request.headers);
        if (hasBody(request.headers)) {
          throw new ApiError(
            "invalid_argument",
            "GET /api/v1/projects takes no request body; send the fields in the query string",
          );
        }
        const query = parseListProjectsQuery(request.search);
        const caller = await authenticate(request.headers.authorization, "project:read");
        validateListProjectsQuery(query);
        const page = await listProjects(pool, pageTokens, caller.orgId, query);
        const headers: Record<string, string> = { "x-request-id": requestId, "content-type": JSON_TYPE };
        if (page.nextPageToken !== undefined) {
          headers.link = nextPageLink(request.path, request.search, page.nextPageToken);
        }
        return { status: 200, headers, body: page.body };
      } catch (error) {
        return fail(error, requestId);
      }
    },

    async createFolder(request) {
      const requestId = requestIdFor(request.headers["x-request-id"]);
      try {
        refuseContentCoding(request.headers);
        const body = decodeCreateFolderBody(request.body, request.headers["content-type"]);
        const caller = await authenticate(request.headers.authorization, "files:upload");
        const idempotencyHeader = request.headers["idempotency-key"];
        const folder = validateFolder(
          body,
          typeof idempotencyHeader === "string" ? idempotencyHeader : undefined,
        );
        if (folder.idempotencyKey !== undefined) {
          // Not part of the comparison (its workload sends no key); refused rather than ignored.
          throw new ApiError(
            "unimplemented",
            "idempotency keys are not implemented by this baseline service",
          );
        }
        return {
          status: 201,
          headers: { "x-request-id": requestId, "content-type": JSON_TYPE },
          body: await createFolder(pool, caller, folder),
        };
      } catch (error) {
        return fail(error, requestId);
      }
    },

    noRoute(method, path, headers) {
      const requestId = requestIdFor(headers["x-request-id"]);
      const allowed = ROUTES[path];
      if (allowed !== undefined && allowed !== method) {
        const reply = fail(
          new ApiError("unimplemented", `${method} is not allowed for ${path}`, [], {}, 405),
          requestId,
        );
        return { ...reply, headers: { ...reply.headers, allow: allowed } };
      }
      return fail(new ApiError("not_found", `no route for ${method} ${path}`, [], {}, 404), requestId);
    },

    bodyTooLarge(headers) {
      const requestId = requestIdFor(headers["x-request-id"]);
      const error = new ApiError(
        "resource_exhausted",
        `request body larger than ${MAX_BODY_BYTES} bytes`,
        [],
        { connection: "close" },
        413,
      );
      return fail(error, requestId);
    },

    unexpected: (error, headers) => fail(error, requestIdFor(headers["x-request-id"])),

    close: () => pool.end(),
  };
}

/** Bodies are taken as sent: a content coding is 415 (RFC 9110, section 15.5.16), as in Folio. */
function refuseContentCoding(headers: IncomingHttpHeaders): void {
  const coding = headers["content-encoding"];
  if (coding !== undefined && coding.toLowerCase() !== "identity") {
    throw new ApiError("invalid_argument", `unsupported Content-Encoding "${coding}"`, [], {}, 415);
  }
}

/** Whether a request announces a body (Content-Length above 0, or chunked). */
function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers["content-length"];
  return (length !== undefined && Number(length) > 0) || headers["transfer-encoding"] !== undefined;
}
