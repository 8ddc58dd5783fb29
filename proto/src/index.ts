/**
 * The Folio API's generated descriptors and message types, re-exported from one place.
 * Everything under ./gen is produced by `buf generate` and never edited.
 */

export * from "./gen/folio/v1/folder_pb.js";
export * from "./gen/folio/v1/options_pb.js";
export * from "./gen/folio/v1/project_pb.js";
export * from "./gen/google/api/annotations_pb.js";
export * from "./gen/google/api/field_behavior_pb.js";
export * from "./gen/google/api/http_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export { documentedErrors, requiredScope, successStatus } from "./options.js";
