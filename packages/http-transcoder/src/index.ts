// @folio/http-transcoder: REST for Connect-ES services, from their google.api.http rules.

export type { HttpError, HttpErrorDetail, HttpErrorEnvelope } from "./error-envelope.js";
export { isHttpBody } from "./http-body.js";
export { collectHttpRoutes, type HttpPathVariable, type HttpRoute } from "./http-route.js";
export {
  createHttpTranscoder,
  defaultMaxBodyBytes,
  type ErrorBodyContext,
  type HttpTranscoderJsonOptions,
  type HttpTranscoderOptions,
  type NodeHandlerFn,
  type NodeServerRequest,
  type NodeServerResponse,
  nextPageTokenField,
} from "./http-transcoder.js";
export {
  type PathTemplate,
  type PathTemplateSegment,
  type PathTemplateVariable,
  parsePathTemplate,
  pathTemplateToOpenApiPath,
} from "./path-template.js";
export {
  createTranscodingRouter,
  type RegisteredMethod,
  type TranscodingRouter,
} from "./transcoding-router.js";
export { isStringLikeMessage } from "./well-known-types.js";
