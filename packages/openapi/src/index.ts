/**
 * OpenAPI 3.1 documents of the REST routes (`google.api.http`) of protobuf-es services, built from
 * the descriptors and the route table the HTTP transcoder serves, and a handler that serves the
 * document with a human-readable reference of it. Nothing here is specific to one API: scopes,
 * success statuses, documented errors and formats come in through options.
 */
export { scalarScriptFile } from "./docs-files.js";
export {
  type ApiDocsHandler,
  type ApiDocsHandlerOptions,
  createApiDocsHandler,
  type DocsRequest,
  type DocsResponse,
} from "./docs-handler.js";
export { createOpenApiDocument } from "./document.js";
export type { CommonErrorContext, ErrorBodyOptions, OpenApiDocumentOptions } from "./document-options.js";
export { commonErrorResponses } from "./error-responses.js";
export { type DocumentedError, ERROR_ENVELOPE_SCHEMA } from "./errors.js";
export type * from "./openapi-types.js";
export { documentOperations, isPathItemMethod, PATH_ITEM_METHODS } from "./path-item-methods.js";
export type { BearerScheme, OAuth2Scheme, OpenIdConnectScheme, SecurityOptions } from "./security.js";
