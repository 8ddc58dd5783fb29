import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
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

/** Sets the content type and data of a raw request body into the request message. @private */
export function setRawBody(
  request: ReflectMessage,
  target: RawBodyTarget,
  contentType: string,
  data: Uint8Array,
): void {
  let httpBody = request;
  if (target.kind === "field") {
    httpBody = reflect(target.field.message as DescMessage);
    request.set(target.field, httpBody);
  }
  httpBody.set(fieldNamed(httpBody.desc, "content_type"), contentType);
  httpBody.set(fieldNamed(httpBody.desc, "data"), data);
}

/**
 * For a route whose response is an HttpBody (the response message, or its `response_body`
 * field), the reader of the response into the raw body and its content type; undefined
 * for a JSON response.
 *
 * @private
 */
export function rawResponseReader(
  route: HttpRoute,
): ((response: Message) => { body: Uint8Array; contentType: string }) | undefined {
  const output = route.method.output;
  const field = route.responseBodyField;
  const httpBody = rawResponseMessage(route);
  if (httpBody === undefined) return undefined;
  const contentType = fieldNamed(httpBody, "content_type");
  const data = fieldNamed(httpBody, "data");
  return (response) => {
    let message = reflect(output, response);
    if (field !== undefined) {
      message = message.isSet(field) ? (message.get(field) as ReflectMessage) : reflect(httpBody);
    }
    const type = message.get(contentType) as string;
    return {
      body: message.get(data) as Uint8Array,
      // An HttpBody that says nothing of its type is bytes (RFC 9110, section 8.3).
      contentType: type === "" ? "application/octet-stream" : type,
    };
  };
}

/** Whether a route answers with a `google.api.HttpBody`'s bytes rather than JSON. */
export function hasRawResponse(route: HttpRoute): boolean {
  return rawResponseMessage(route) !== undefined;
}

/** The HttpBody a route's response body is (the response message, or its `response_body` field). */
function rawResponseMessage(route: HttpRoute): DescMessage | undefined {
  const field = route.responseBodyField;
  const body = field === undefined ? route.method.output : field.message;
  return isHttpBody(body) ? body : undefined;
}

function fieldNamed(message: DescMessage, name: string): DescField {
  const field = message.fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`${message.typeName} has no field ${name}`);
  return field;
}
