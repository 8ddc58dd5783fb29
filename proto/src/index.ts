/**
 * The Folio API's generated descriptors and message types, re-exported from one place.
 * Everything under ./gen is produced by `buf generate` and never edited. The google/api and
 * google/rpc types it uses come from @folio/googleapis. `requestViolations` says what a request
 * breaks of its `buf.validate` rules the way Folio's clients are told it (server and browser alike).
 */

export * from "./gen/folio/v1/folder_pb.js";
export * from "./gen/folio/v1/options_pb.js";
export * from "./gen/folio/v1/project_pb.js";
export { effectiveErrors } from "./method-errors.js";
export {
  alwaysSet,
  declaredErrors,
  declaredScopes,
  requestHeaders,
  requiredScope,
  ruleDescription,
  sharedErrors,
  successStatus,
} from "./options.js";
export { linearRegexMatch } from "./regex-match.js";
export { fieldViolations, requestViolations } from "./violations.js";
