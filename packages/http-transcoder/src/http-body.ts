import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { HttpRoute } from "./http-route.js";

/**
 * `google.api.HttpBody` (google/api/httpbody.proto): "Message that represents an arbitrary HTTP
 * body. It should only be used for payload formats that can't be represented as JSON, such as
 * raw binary or an HTML page." Its `content_type` travels as the `Content-Type` header, its
 * `data` as the body itself.
 */
const HTTP_BODY = "google.api.HttpBody";

/** Whether a message is `google.api.HttpBody`, by name: any generated copy of it is. */
export function isHttpBody(message: DescMessage | undefined): boolean {
  return message?.typeName === HTTP_BODY;
}

/**
 * Where a route puts a raw request body: the request message itself when it is an HttpBody and
 * the rule says `body: "*"`, or the HttpBody field `body` names.
 */
export type RawBodyTarget =
  | { readonly kind: "message" }
  | { readonly kind: "field"; readonly field: DescField };

/**
 * Where a route takes its request body raw, as a `google.api.HttpBody` of any media type, or
 * undefined for a JSON body (or none).
 */
export function rawBodyTarget(route: HttpRoute): RawBodyTarget | undefined {
  if (route.body === "*" && isHttpBody(route.method.input)) return { kind: "message" };
  const field = route.bodyField;
  if (field?.fieldKind === "message" && isHttpBody(field.message)) return { kind: "field", field };
  return undefined;
}

/** Whether a route answers with a `google.api.HttpBody`'s bytes rather than JSON. */
export function hasRawResponse(route: HttpRoute): boolean {
  return rawResponseMessage(route) !== undefined;
}

/**
 * The HttpBody a route's response body is (the response message, or its `response_body` field),
 * or undefined for a JSON response.
 *
 * @private
 */
export function rawResponseMessage(route: HttpRoute): DescMessage | undefined {
  const field = route.responseBodyField;
  const body = field === undefined ? route.method.output : field.message;
  return isHttpBody(body) ? body : undefined;
}
