/**
 * The Folio REST API as the proto states it (services, success statuses, errors, scopes, headers)
 * and its OpenAPI document. Its own package so that the server serves the document and the client
 * packages generate their REST types from the same document at build, without depending on the
 * server (which depends on the web app, which depends on the client).
 */
export {
  createFolioOpenApiDocument,
  DEVELOPMENT_TOKEN_PATH,
  type DocumentAuth,
  type DocumentedApi,
} from "./document.js";
export { apiScopeNames, apiScopes, restApi, services } from "./rest-api.js";
