import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import {
  createOpenApiDocument,
  type OpenApiDocument,
  type SecurityOptions,
  uuidForIdFields,
} from "@folio/openapi";
import { alwaysSet, FolderService } from "@folio/proto";
import type { AuthConfig } from "../env.js";
import { restApi } from "../services/api.js";
import { DEVELOPMENT_TOKEN_PATH } from "./development-token.js";

/** The OpenAPI document of the REST API, with descriptions from the proto comments. */
export function createFolioOpenApiDocument(auth: AuthConfig): OpenApiDocument {
  const image = readFileSync(createRequire(import.meta.url).resolve("@folio/proto/folio.binpb"));
  return createOpenApiDocument({
    services: restApi.services,
    info: {
      title: "Folio API",
      version: "v1",
      description: "Document management for an organisation's workspace: folders and projects.",
      contact: { name: "Folio" },
      // No licence is granted: an SPDX reference of the document's own, as SPDX defines them.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    basePath: "/api/v1",
    comments: createFileRegistry(fromBinary(FileDescriptorSetSchema, image)),
    security: securityOf(auth),
    successStatus: restApi.successStatus,
    errorResponses: restApi.errorResponses,
    stringFormat: uuidForIdFields,
    alwaysSetInResponses: alwaysSet,
    pageLinks: restApi.pageLinks,
    requestHeaders: (method) =>
      method === FolderService.method.createFolder
        ? {
            "Idempotency-Key": {
              description:
                "Makes retries safe (draft-ietf-httpapi-idempotency-key-header): 1 to 255 visible ASCII characters, a UUID is a good choice. The same key with the same request returns the first response; with another request it is 409. Equal to `requestId` when both are sent.",
              schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
            },
          }
        : undefined,
    requestExample: (method) =>
      method === FolderService.method.createFolder ? { name: "Invoices 2026", color: "#1e90ff" } : undefined,
    responseHeaders: (status) => ({
      "X-Request-Id": {
        description:
          "The request's id (the client's own `X-Request-Id` when it sent a plain one); quote it when reporting a problem.",
        required: true,
        schema: { type: "string" },
      },
      ...(status === 401 ? {} : RATE_LIMIT_HEADERS),
      ...(status === 429 || status === 409 || status === 503
        ? {
            "Retry-After": {
              description:
                "Seconds to wait before retrying: on 429 until the rate limit allows another request, on 409 `aborted` until the request with the same idempotency key has likely finished, on 503 until the database is likely back.",
              schema: { type: "integer", minimum: 1 },
            },
          }
        : {}),
    }),
  });
}

/**
 * How clients get tokens: OAuth 2.0 client credentials at the issuer's token endpoint
 * (AUTH_TOKEN_URL, or the development token endpoint), so that tools know the scopes; without a
 * known token endpoint, a bearer token, each operation naming its scope in its description.
 */
function securityOf(auth: AuthConfig): SecurityOptions {
  const common = {
    requiredScope: restApi.requiredScope,
    description:
      "OAuth 2.0 access tokens (JWT, RFC 9068) of the organisation's issuer, sent as `Authorization: Bearer <token>`. The token's `org_id` claim is the organisation whose data the calls see.",
    scopes: {
      "files:upload": "Create folders.",
      "project:read": "List the organisation's projects.",
    },
  };
  const tokenUrl = auth.tokenUrl ?? (auth.mode === "development" ? DEVELOPMENT_TOKEN_PATH : undefined);
  return tokenUrl === undefined
    ? common
    : { ...common, scheme: { type: "oauth2", flows: { clientCredentials: { tokenUrl } } } };
}

/** Rate-limit headers of authenticated responses (draft-ietf-httpapi-ratelimit-headers-06). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": {
    description:
      "Requests allowed per window by the policy closest to being exceeded (per token or per organisation).",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": {
    description: "Requests left in the current window of that policy.",
    schema: { type: "integer" },
  },
  "RateLimit-Reset": {
    description: "Seconds until that policy's window resets.",
    schema: { type: "integer" },
  },
  "RateLimit-Policy": {
    description: "The policies applied, e.g. `1200;w=60, 6000;w=60` (requests;w=window in seconds).",
    schema: { type: "string" },
  },
} as const;
