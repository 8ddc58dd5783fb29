/**
 * OpenAPI 3.1 documents of the REST routes (`google.api.http`) of protobuf-es services, built from
 * the descriptors and the REST rules the HTTP transcoder serves by (`@folio/http-transcoder/rules`).
 * Pure functions: nothing here serves, reads or writes files. Nothing is specific to one API either:
 * scopes, success statuses, documented errors and formats come in through options.
 */
export { createOpenApiDocument } from "./document.js";
export type { CommonErrorContext, ErrorBodyOptions, OpenApiDocumentOptions } from "./document-options.js";
export { commonErrorResponses } from "./error-responses.js";
export { type DocumentedError, ERROR_ENVELOPE_SCHEMA } from "./errors.js";
export type * from "./openapi-types.js";
export { documentOperations, isPathItemMethod, PATH_ITEM_METHODS } from "./path-item-methods.js";
export type { BearerScheme, OAuth2Scheme, OpenIdConnectScheme, SecurityOptions } from "./security.js";
