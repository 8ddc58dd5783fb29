import {
  acceptsFieldsParameter,
  fieldsParameter,
  type HttpRoute,
  hasRawResponse,
  isCompressedRoute,
  isConditionalRoute,
  supportedContentCodings,
} from "@folio/http-transcoder/rules";
import type { HeaderObject, ParameterObject, ResponseObject } from "./openapi-types.js";

const codings = { type: "string" as const, enum: [...supportedContentCodings] };

/**
 * The request headers of the transcoder's HTTP rules a route reads (`isConditionalRoute`,
 * `isCompressedRoute`, the codings of request bodies, `acceptsFieldsParameter`): `If-None-Match`,
 * `Accept-Encoding`, `Content-Encoding`, and the `fields` query parameter.
 *
 * @private
 */
export function httpSemanticsParameters(route: HttpRoute): ParameterObject[] {
  const parameters: ParameterObject[] = [];
  if (acceptsFieldsParameter(route, hasRawResponse(route))) {
    parameters.push({
      name: fieldsParameter,
      in: "query",
      description:
        "The fields of the answer to send (AIP-157), others left out: comma-separated JSON names, a field's own fields in parentheses or after a slash, e.g. `projects(id,name)`. An unknown field is 400.",
      schema: { type: "string" },
    });
  }
  if (isConditionalRoute(route)) {
    parameters.push({
      name: "If-None-Match",
      in: "header",
      description:
        "The `ETag` of an answer received before: if it is still current, the answer is 304 with no body.",
      schema: { type: "string" },
    });
  }
  if (isCompressedRoute(route)) {
    parameters.push({
      name: "Accept-Encoding",
      in: "header",
      description: `The codings the client reads (${supportedContentCodings.join(", ")}); answers above a size threshold are compressed in one of them.`,
      schema: { type: "string" },
    });
  }
  if (route.body !== undefined) {
    parameters.push({
      name: "Content-Encoding",
      in: "header",
      description:
        "The coding of the request body, if compressed; its size limit applies after decompression.",
      schema: codings,
    });
  }
  return parameters;
}

/**
 * Adds `ETag` and `Content-Encoding` to a route's success response, and gives the 304 of a
 * conditional route.
 *
 * @private
 */
export function httpSemanticsResponses(
  route: HttpRoute,
  success: ResponseObject,
): Record<string, ResponseObject> {
  const headers: Record<string, HeaderObject> = {};
  if (isConditionalRoute(route)) {
    headers.ETag = {
      description: "A strong tag of this answer, for `If-None-Match`.",
      schema: { type: "string" },
    };
  }
  if (isCompressedRoute(route)) {
    headers["Content-Encoding"] = { description: "The coding of a compressed answer.", schema: codings };
  }
  success.headers = { ...success.headers, ...headers };
  if (!isConditionalRoute(route)) return {};
  return {
    "304": {
      description: "Not Modified: the `If-None-Match` names the current answer. No body.",
      headers: { ETag: headers.ETag as HeaderObject },
    },
  };
}
