import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { type RawBodyTarget, rawResponseMessage } from "./http-body.js";
import type { HttpRoute } from "./http-route.js";

// The bytes of raw `google.api.HttpBody` bodies, by the rules of http-body.ts: a request's into
// its message, a response's out of it.

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

function fieldNamed(message: DescMessage, name: string): DescField {
  const field = message.fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`${message.typeName} has no field ${name}`);
  return field;
}
