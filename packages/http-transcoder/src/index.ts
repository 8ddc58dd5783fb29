// @folio/http-transcoder: REST for Connect-ES services, from their google.api.http rules.
//
// Serving: createHttpTranscoder (the Node handler) with its options, and createTranscodingRouter
// (the router whose methods it calls in-process).
// The REST rules, which the transcoder serves by and an OpenAPI document describes, are
// rules.ts's, exported here too and on their own as @folio/http-transcoder/rules: the routes
// (collectHttpRoutes, path templates), the query parameters a route binds (queryParameters), the
// fields a request requires (isRequiredField, isRequestBodyRequired), raw HttpBody bodies
// (rawBodyTarget, hasRawResponse), the failures the transcoder answers itself (restErrorRules,
// routeErrorRules), the next-page link (nextPageTokenField) and the HTTP semantics of a route.

// Node's request and response types, under the names this package's API has always used.
export type {
  NodeHandler as NodeHandlerFn,
  NodeRequest as NodeServerRequest,
  NodeResponse as NodeServerResponse,
} from "@folio/rpc-protocols";
// The router whose methods the transcoder calls in-process (from @folio/rpc-protocols, which calls
// them for Connect, gRPC and gRPC-Web too).
export {
  createTranscodingRouter,
  type RegisteredMethod,
  type RequestTarget,
  splitRequestTarget,
  type TranscodingRouter,
} from "@folio/rpc-protocols";
export type { AnswerReport, TranscodedRequest } from "./answer-report.js";
export { type CompressionOptions, negotiateContentCoding } from "./content-coding.js";
export type { HttpError, HttpErrorDetail, HttpErrorEnvelope } from "./error-envelope.js";
export type { HttpTranscoderHandler } from "./handle-request.js";
export { createHttpTranscoder } from "./http-transcoder.js";
export * from "./rules.js";
export {
  defaultMaxBodyBytes,
  type ErrorBodyContext,
  type HttpTranscoderOptions,
} from "./transcoder-options.js";
