import type { DescField, JsonValue } from "@bufbuild/protobuf";
import {
  type HttpRoute,
  hasRawResponse,
  isRequestBodyRequired,
  nextPageTokenField,
  rawBodyTarget,
} from "@folio/http-transcoder/rules";
import type { CommentLookup } from "./comments.js";
import type { RequestBodyObject, ResponseObject, SchemaObject } from "./openapi-types.js";
import type { SchemaBuilder } from "./schemas.js";

/**
 * The request body of a route: a raw `google.api.HttpBody` of any media type, the request
 * message (less the fields the path binds) or the body field in JSON, required when the
 * transcoder's rule says a request needs one (`isRequestBodyRequired`).
 *
 * @private
 */
export function requestBodyFor(
  route: HttpRoute,
  schemas: SchemaBuilder,
  comments: CommentLookup,
  example: JsonValue | undefined,
): RequestBodyObject | undefined {
  const input = route.method.input;
  let schema: SchemaObject;
  let description: string | undefined;
  if (route.body === undefined) {
    return undefined;
  } else if (rawBodyTarget(route) !== undefined) {
    return rawBody(comments(route.body === "*" ? input : (route.bodyField as DescField)));
  } else if (route.body === "*") {
    const boundTopLevel = new Set(
      route.pathVariables.filter((v) => v.fieldPath.length === 1).map((v) => v.fieldPath[0] as string),
    );
    schema =
      boundTopLevel.size === 0
        ? schemas.messageRef(input, "request")
        : schemas.messageSchemaWithout(input, "request", boundTopLevel);
  } else {
    const field = route.bodyField as DescField;
    schema = schemas.fieldSchema(field, "request");
    description = comments(field);
  }
  const body: RequestBodyObject = {
    required: isRequestBodyRequired(route),
    content: { "application/json": example === undefined ? { schema } : { schema, example } },
  };
  if (description !== undefined) body.description = description;
  return body;
}

/** Raw bytes of any media type: a `google.api.HttpBody`. */
const BINARY: SchemaObject = { type: "string", format: "binary" };

/** A request body that is a `google.api.HttpBody`: any media type, sent as it is. */
function rawBody(comment: string | undefined): RequestBodyObject {
  const description = "The body as it is, of any media type; its `Content-Type` goes with it.";
  return {
    required: true,
    description: comment === undefined ? description : `${comment}\n\n${description}`,
    content: { "*/*": { schema: { ...BINARY } } },
  };
}

/**
 * The success response of a route: JSON (the response message, its `response_body` field, or the
 * message less its next page token when `pageLinks` sends it as a `Link`), a stream, or raw bytes.
 *
 * @private
 */
export function successResponse(
  route: HttpRoute,
  status: number,
  schemas: SchemaBuilder,
  comments: CommentLookup,
  pageLinks: boolean,
  errorSchemaName: string,
): ResponseObject {
  let schema: SchemaObject;
  let description = status === 201 ? "Created." : "OK.";
  const streaming = route.method.methodKind === "server_streaming";
  const nextPage = pageLinks && !streaming ? nextPageTokenField(route) : undefined;
  if (hasRawResponse(route)) {
    // google.api.HttpBody: the bytes as they are, with the content type the method gives them.
    return {
      description: streaming
        ? `${description} The chunks of the stream one after the other, of the first one's content type. A stream that fails after it started is cut off.`
        : `${description} The body as the method produces it, of its own content type.`,
      content: { "*/*": { schema: { ...BINARY } } },
    };
  }
  if (streaming) {
    return streamResponse(route, description, schemas, comments, errorSchemaName);
  }
  if (route.responseBodyField !== undefined) {
    schema = schemas.fieldSchema(route.responseBodyField, "response");
    const comment = comments(route.responseBodyField);
    if (comment !== undefined) description = `${description} ${comment}`;
  } else if (nextPage !== undefined) {
    schema = schemas.messageSchemaWithout(route.method.output, "response", new Set([nextPage.name]));
  } else {
    schema = schemas.messageRef(route.method.output, "response");
  }
  const response: ResponseObject = { description, content: { "application/json": { schema } } };
  if (nextPage !== undefined) {
    response.headers = {
      Link: {
        description:
          'The next page, when there is one: `<path?query&pageToken=...>; rel="next"` (RFC 8288), the request\'s own path and query with `pageToken` set. Absent on the last page.',
        schema: { type: "string" },
      },
    };
  }
  return response;
}

/**
 * A server stream: newline-delimited JSON (`{"result": message}` a line), or Server-Sent Events
 * for a client that accepts `text/event-stream`; a failure after the stream started ends it with
 * the error body (an NDJSON line, an `error` event).
 */
function streamResponse(
  route: HttpRoute,
  description: string,
  schemas: SchemaBuilder,
  comments: CommentLookup,
  errorSchemaName: string,
): ResponseObject {
  const field = route.responseBodyField;
  const message =
    field === undefined
      ? schemas.messageRef(route.method.output, "response")
      : schemas.fieldSchema(field, "response");
  const comment = field === undefined ? undefined : comments(field);
  const errorRef = { $ref: `#/components/schemas/${errorSchemaName}` };
  return {
    description: [
      description,
      comment,
      'A stream of messages: newline-delimited JSON, one `{"result": message}` a line, or, with `Accept: text/event-stream`, Server-Sent Events, one `data:` event a message. A failure after the stream started ends it with the error body: as the last line, or as an `event: error`.',
    ]
      .filter((part) => part !== undefined)
      .join(" "),
    content: {
      "application/x-ndjson": {
        schema: {
          description: "One line of the stream.",
          anyOf: [{ type: "object", required: ["result"], properties: { result: message } }, errorRef],
        },
      },
      "text/event-stream": {
        schema: {
          type: "string",
          description: "`data: <message JSON>` events, and an `event: error` whose data is the error body.",
        },
      },
    },
  };
}
