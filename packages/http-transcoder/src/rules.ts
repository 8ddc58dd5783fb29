// @folio/http-transcoder/rules: the REST rules the transcoder serves by, for whatever describes
// the API (@folio/openapi) to read rather than restate. Descriptors in, rules out: these modules
// import @bufbuild/protobuf, the package's generated google/api types, node:zlib (for the codings
// of this Node) and Connect's Code as a type only, so a reader of the rules loads nothing of the
// transcoder's serving or of Connect. The codes' names and HTTP statuses are here too, the ones
// the transcoder's error responses use.

export { codeFromString, codeToHttpStatus, codeToString } from "./code-names.js";

export { hasRawResponse, isHttpBody, type RawBodyTarget, rawBodyTarget } from "./http-body.js";
export { collectHttpRoutes, type HttpPathVariable, type HttpRoute } from "./http-route.js";
export {
  acceptsFieldsParameter,
  fieldsParameter,
  isCompressedRoute,
  isConditionalRoute,
} from "./http-semantics.js";
export type { HttpTranscoderJsonOptions } from "./json-options.js";
export { nextPageTokenField } from "./next-page-token.js";
export {
  type PathTemplate,
  type PathTemplateSegment,
  type PathTemplateVariable,
  parsePathTemplate,
  pathTemplateToOpenApiPath,
} from "./path-template.js";
export { type QueryParameter, queryParameters } from "./query-parameters.js";
export { isRequestBodyRequired, isRequiredField } from "./required-fields.js";
export {
  type RestErrorRule,
  type RouteErrorRule,
  restErrorRules,
  routeErrorRules,
} from "./rest-error-rules.js";
export { type ContentCoding, supportedContentCodings } from "./supported-codings.js";
export { hasUrlForm } from "./url-form.js";
export { isStringLikeMessage } from "./well-known-types.js";
