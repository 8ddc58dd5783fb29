import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createOpenApiDocument, uuidForIdFields } from "@folio/openapi";
import { restApi } from "./api.js";

/** The OpenAPI document of the REST API, with descriptions from the proto comments. */
export function createFolioOpenApiDocument() {
  const image = readFileSync(createRequire(import.meta.url).resolve("@folio/proto/folio.binpb"));
  return createOpenApiDocument({
    services: restApi.services,
    info: {
      title: "Folio API",
      version: "v1",
      description: "Document management for an organisation's workspace: folders and projects.",
    },
    comments: createFileRegistry(fromBinary(FileDescriptorSetSchema, image)),
    security: {
      requiredScope: restApi.requiredScope,
      description: "OAuth 2.0 access token (JWT, RFC 9068) with the operation's scope.",
    },
    successStatus: restApi.successStatus,
    errorResponses: restApi.errorResponses,
    stringFormat: uuidForIdFields,
    pageLinks: restApi.pageLinks,
    responseHeaders: (status) => ({
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
