import type { Code } from "@connectrpc/connect";
import { rawBodyTarget } from "./http-body.js";
import type { HttpRoute } from "./http-route.js";

// Connect's codes are gRPC's numbers (google.rpc.Code). The rules name them by number, typed with
// Connect's enum through a type-only import, so that this module loads nothing of Connect.
const INVALID_ARGUMENT = 3 as Code.InvalidArgument;
const NOT_FOUND = 5 as Code.NotFound;
const RESOURCE_EXHAUSTED = 8 as Code.ResourceExhausted;
const UNIMPLEMENTED = 12 as Code.Unimplemented;
const INTERNAL = 13 as Code.Internal;

/** A failure the transcoder answers itself, before or around the call: its code and HTTP status. */
export interface RestErrorRule {
  readonly code: Code;
  /** The status of the response: HTTP's own for the failure where it has one, else the code's. */
  readonly httpStatus: number;
}

/**
 * The failures the transcoder answers itself. HTTP has statuses of its own for some, which they
 * keep, with the nearest Connect code (as grpc-gateway does for routing errors).
 */
export const restErrorRules = {
  /** The path, query string or body cannot be read into the request message. */
  invalidRequest: { code: INVALID_ARGUMENT, httpStatus: 400 },
  /** No route matches the path. */
  noRoute: { code: NOT_FOUND, httpStatus: 404 },
  /** Routes match the path, not for the method (RFC 9110, section 15.5.6; with `Allow`). */
  methodNotAllowed: { code: UNIMPLEMENTED, httpStatus: 405 },
  /** The body is larger than the transcoder reads (RFC 9110, section 15.5.14). */
  contentTooLarge: { code: RESOURCE_EXHAUSTED, httpStatus: 413 },
  /** The body's media type or content coding is not accepted (RFC 9110, section 15.5.16). */
  unsupportedMediaType: { code: INVALID_ARGUMENT, httpStatus: 415 },
  /** Anything thrown that is not a `ConnectError`: its message is not shown. */
  internal: { code: INTERNAL, httpStatus: 500 },
} as const satisfies Record<string, RestErrorRule>;

/** A failure a route can answer with whatever its method does, and when it happens. */
export interface RouteErrorRule extends RestErrorRule {
  /** When it happens, as a sentence for a reader of the API's documentation. */
  readonly condition: string;
}

/**
 * The failures a route answers itself, whatever its method does: what the route's path, query and
 * body can get wrong (a raw `google.api.HttpBody` body takes any media type), and an unexpected
 * failure. An OpenAPI document lists these for every operation.
 */
export function routeErrorRules(route: HttpRoute): RouteErrorRule[] {
  const hasBody = route.body !== undefined;
  const rawBody = rawBodyTarget(route) !== undefined;
  const rules: RouteErrorRule[] = [
    {
      ...restErrorRules.invalidRequest,
      condition: !hasBody
        ? "A path or query parameter is unknown or cannot be parsed, or the request has a body."
        : rawBody
          ? "A path or query parameter is unknown or cannot be parsed."
          : "The body is not valid JSON, has a field the request message does not have, or a value of the wrong type; or a path or query parameter cannot be parsed.",
    },
  ];
  if (hasBody) {
    rules.push(
      { ...restErrorRules.contentTooLarge, condition: "The body is larger than the server accepts." },
      {
        ...restErrorRules.unsupportedMediaType,
        condition: rawBody
          ? "The body has a `Content-Encoding` (compressed bodies are not accepted)."
          : "The body's `Content-Type` is not `application/json` (in UTF-8), or the body has a `Content-Encoding`.",
      },
    );
  }
  rules.push({ ...restErrorRules.internal, condition: "An unexpected server error; quote the `requestId`." });
  return rules;
}
