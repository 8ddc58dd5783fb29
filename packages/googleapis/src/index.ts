/**
 * google/api (HTTP rules, field behaviours, HttpBody) and google/rpc (Status, Code, the error
 * details) as protobuf-es code, generated once from the npm package google-proto-files, and the
 * one builder of `invalid_argument` errors with a `google.rpc.BadRequest` detail, and the codes'
 * names and HTTP statuses (code-names.ts).
 *
 * Code generated elsewhere refers to these types with the protoc-gen-es option
 * `rewrite_imports=./google/**\/*_pb.js:@folio/googleapis` instead of generating them again, so
 * that there is one descriptor of each type in a process.
 */

export { clientCodeFromHttpStatus, codeFromString, codeToHttpStatus, codeToString } from "./code-names.js";
export * from "./gen/google/api/annotations_pb.js";
export * from "./gen/google/api/field_behavior_pb.js";
export * from "./gen/google/api/http_pb.js";
export * from "./gen/google/api/httpbody_pb.js";
export * from "./gen/google/rpc/code_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/google/rpc/status_pb.js";
export { type FieldViolation, invalidArgument } from "./invalid-argument.js";
