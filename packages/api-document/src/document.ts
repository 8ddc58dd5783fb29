import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  createFileRegistry,
  type DescMethod,
  type DescService,
  type FileRegistry,
  fromBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createOpenApiDocument, type OpenApiDocument, type SecurityOptions } from "@folio/openapi";
import { alwaysSet, declaredScopes, FolderService } from "@folio/proto";
import { restApi } from "./rest-api.js";

/** Where development mode's token endpoint is: the `tokenUrl` of the OpenAPI document. */
export const DEVELOPMENT_TOKEN_PATH = "/oauth/token";

/** What the document says of tokens: the server's auth mode and its issuer's token endpoint. */
export interface DocumentAuth {
  readonly mode: string;
  readonly tokenUrl?: string | undefined;
}

/**
 * How to call the API with @folio/client, on the docs page: one package for Node and browsers, with
 * the retries, pages, errors and tokens this document describes handled.
 */
const CLIENT_USE = [
  "**TypeScript client** (Node and browsers; Connect, gRPC-Web, gRPC or REST): `npm install @folio/client`, then",
  "",
  "```ts",
  'import { createFolioClient } from "@folio/client";',
  'const folio = createFolioClient({ baseUrl: "https://folio.example.com", token, protocol: "rest" });',
  'for await (const project of folio.projects({ city: "Lyon" })) console.log(project.name);',
  "```",
  "",
  "It retries `unavailable`, `resource_exhausted` and `aborted` after the `Retry-After` sent, gives each create one idempotency key for all its attempts (the request's `requestId`, AIP-155), follows `Link: rel=\"next\"` pages, and reads every error's `ErrorInfo` and `BadRequest`.",
].join("\n");

/**
 * The API a document describes: its services and the registry of their files with comments. By
 * default Folio's own, as built; the contract gate passes the descriptors of a proto under review.
 */
export interface DocumentedApi {
  readonly services: readonly DescService[];
  readonly comments: FileRegistry;
}

/** The OpenAPI document of the REST API, with descriptions from the proto comments. */
export function createFolioOpenApiDocument(
  auth: DocumentAuth,
  api: DocumentedApi = builtApi(),
): OpenApiDocument {
  return createOpenApiDocument({
    services: api.services,
    info: {
      title: "Folio API",
      version: "v1",
      description: `Document management for an organisation's workspace: folders and projects.\n\n${CLIENT_USE}`,
      contact: { name: "Folio" },
      // No licence is granted: an SPDX reference of the document's own, as SPDX defines them.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    basePath: "/api/v1",
    comments: api.comments,
    security: securityOf(auth, api.services),
    successStatus: restApi.successStatus,
    errorResponses: restApi.errorResponses,
    alwaysSetInResponses: alwaysSet,
    pageLinks: restApi.pageLinks,
    requestHeaders: documentedRequestHeaders,
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

/** Folio's API as built: the generated services and the image of the proto with its comments. */
function builtApi(): DocumentedApi {
  const image = readFileSync(createRequire(import.meta.url).resolve("@folio/proto/folio.binpb"));
  return {
    services: restApi.services,
    comments: createFileRegistry(fromBinary(FileDescriptorSetSchema, image)),
  };
}

/**
 * How clients get tokens: OAuth 2.0 client credentials at the issuer's token endpoint
 * (AUTH_TOKEN_URL, or the development token endpoint), so that tools know the scopes; without a
 * known token endpoint, a bearer token, each operation naming its scope in its description.
 */
function securityOf(auth: DocumentAuth, services: readonly DescService[]): SecurityOptions {
  const common = {
    requiredScope: restApi.requiredScope,
    description:
      "OAuth 2.0 access tokens (JWT, RFC 9068) of the organisation's issuer, sent as `Authorization: Bearer <token>`. The token's `org_id` claim is the organisation whose data the calls see.",
    scopes: Object.fromEntries(
      services.flatMap((service) => declaredScopes(service)).map((scope) => [scope.name, scope.description]),
    ),
  };
  const tokenUrl = auth.tokenUrl ?? (auth.mode === "development" ? DEVELOPMENT_TOKEN_PATH : undefined);
  return tokenUrl === undefined
    ? common
    : { ...common, scheme: { type: "oauth2", flows: { clientCredentials: { tokenUrl } } } };
}

/** The request headers a method declares in the proto, with the rule the server enforces. */
function documentedRequestHeaders(method: DescMethod) {
  const headers = restApi.requestHeaders(method);
  if (headers.length === 0) return undefined;
  return Object.fromEntries(
    headers.map((header) => [
      header.name,
      {
        description: header.description,
        schema: {
          type: "string" as const,
          ...(header.minLength > 0 ? { minLength: header.minLength } : {}),
          ...(header.maxLength > 0 ? { maxLength: header.maxLength } : {}),
          ...(header.pattern !== "" ? { pattern: header.pattern } : {}),
        },
      },
    ]),
  );
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
