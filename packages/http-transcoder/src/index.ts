// @folio/http-transcoder: REST for Connect-ES services, from their google.api.http rules.
//
// Serving: createHttpTranscoder (the Node handler) with its options; how it calls a method, the
// MethodRunner (createHandlerRunner: through a Connect router's handlers, the default), and what a
// server that runs its methods its own way needs of Node's requests (types, headers, the request
// target, the reason a call ends when its client goes away, entity tags).
// The REST rules, which the transcoder serves by and an OpenAPI document describes, are
// rules.ts's, exported here too and on their own as @folio/http-transcoder/rules: the routes
// (collectHttpRoutes, path templates), the query parameters a route binds (queryParameters), the
// fields a request requires (isRequiredField, isRequestBodyRequired), raw HttpBody bodies
// (rawBodyTarget, hasRawResponse), the failures the transcoder answers itself (restErrorRules,
// routeErrorRules), the next-page link (nextPageTokenField), the HTTP semantics of a route and the
// codes' names and statuses (codeToString, codeFromString, codeToHttpStatus).
// invalidArgument builds the `invalid_argument` errors, with a google.rpc.BadRequest, that the
// transcoder answers a request it cannot read with, for handlers to answer theirs alike. The
// google/api and google/rpc types it uses are exported as @folio/http-transcoder/google/*.

export type { AnswerReport, RequestScope } from "./answer-report.js";
export { clientGoneReason } from "./client-gone.js";
export { type CompressionOptions, negotiateContentCoding } from "./content-coding.js";
export { entityTag, matchesIfNoneMatch } from "./entity-tag.js";
export type { HttpError, HttpErrorDetail, HttpErrorEnvelope } from "./error-envelope.js";
export type { HttpTranscoderHandler } from "./handle-request.js";
export { createHandlerRunner } from "./handler-runner.js";
export { createHttpTranscoder } from "./http-transcoder.js";
export { type FieldViolation, invalidArgument } from "./invalid-argument.js";
export { type MethodCall, type MethodRunner, procedurePath, type RunningCall } from "./method-runner.js";
export type { NodeHandler, NodeRequest, NodeResponse } from "./node-types.js";
export { RequestHeaders } from "./request-headers.js";
export { type RequestTarget, splitRequestTarget } from "./request-target.js";
export * from "./rules.js";
export {
  defaultMaxBodyBytes,
  type ErrorBodyContext,
  type HttpTranscoderOptions,
} from "./transcoder-options.js";
