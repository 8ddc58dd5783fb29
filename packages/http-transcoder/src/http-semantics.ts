import { fieldByName } from "./field-names.js";
import type { HttpRoute } from "./http-route.js";

/**
 * Whether a route's answers carry an `ETag` and honour `If-None-Match` with 304 (the `etags`
 * option): unary GET routes (and their HEAD).
 */
export function isConditionalRoute(route: HttpRoute): boolean {
  return route.httpMethod === "GET" && route.method.methodKind === "unary";
}

/**
 * Whether a route's answers are compressed for the client's `Accept-Encoding` (the `compression`
 * option): unary routes; streams go out as they are, so that no event waits in a compressor.
 */
export function isCompressedRoute(route: HttpRoute): boolean {
  return route.method.methodKind === "unary";
}

/** The name of the system parameter that selects the fields of an answer (AIP-157). */
export const fieldsParameter = "fields";

/**
 * Whether a route's answers can be partial (`?fields=`): unary GET routes whose answer is their
 * response message as JSON, whose request has no field of that name.
 */
export function acceptsFieldsParameter(route: HttpRoute, rawResponse: boolean): boolean {
  return (
    route.httpMethod === "GET" &&
    route.method.methodKind === "unary" &&
    route.responseBodyField === undefined &&
    !rawResponse &&
    fieldByName(route.method.input, fieldsParameter) === undefined
  );
}
