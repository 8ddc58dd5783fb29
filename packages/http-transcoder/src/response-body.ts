import type { DescMethod, Message } from "@bufbuild/protobuf";
import type { HttpRoute } from "./http-route.js";
import { nextPageTokenField } from "./next-page-token.js";
import { rawResponseReader } from "./raw-body.js";
import {
  createFieldJsonWriter,
  createMessageJsonWriter,
  type FieldSelection,
  type MessageJsonWriter,
  type ResponseJsonOptions,
} from "./response-json.js";

/** The body of a response, its content type, and the next page's token if `pageLinks` moves it. @private */
export interface ResponseBody {
  readonly body: string | Uint8Array;
  readonly contentType: string;
  readonly nextPageToken?: string;
}

/** Writes a route's answer: JSON, or a `google.api.HttpBody`'s own bytes and type. @private */
export type ResponseBodyWriter = (message: Message) => ResponseBody;

/** How the writers of a transcoder's routes write JSON, sharing one writer per response type. @private */
export interface ResponseBodyOptions {
  readonly json: ResponseJsonOptions;
  readonly pageLinks: boolean;
  /** Writers of whole response messages, by method: routes of one method share theirs. */
  readonly messageWriters: Map<DescMethod, MessageJsonWriter>;
}

/** Compiles the {@link ResponseBodyWriter} of a route, of the fields `selection` names if given. @private */
export function createResponseBodyWriter(
  route: HttpRoute,
  options: ResponseBodyOptions,
  selection?: FieldSelection,
): ResponseBodyWriter {
  const method = route.method;
  const raw = rawResponseReader(route);
  if (raw !== undefined) return raw;
  const nextPageField =
    options.pageLinks && method.methodKind === "unary" ? nextPageTokenField(route) : undefined;
  let writeJson: MessageJsonWriter;
  if (route.responseBodyField !== undefined) {
    writeJson = createFieldJsonWriter(route.responseBodyField, options.json);
  } else if (nextPageField !== undefined || selection !== undefined) {
    writeJson = createMessageJsonWriter(method.output, options.json, nextPageField, selection);
  } else {
    let writer = options.messageWriters.get(method);
    if (writer === undefined) {
      writer = createMessageJsonWriter(method.output, options.json);
      options.messageWriters.set(method, writer);
    }
    writeJson = writer;
  }
  const nextPageLocalName = nextPageField?.localName;
  if (nextPageLocalName === undefined) {
    return (message) => ({ body: writeJson(message), contentType: "application/json" });
  }
  return (message) => {
    const body = writeJson(message);
    const token = (message as unknown as Record<string, unknown>)[nextPageLocalName];
    return typeof token === "string" && token !== ""
      ? { body, contentType: "application/json", nextPageToken: token }
      : { body, contentType: "application/json" };
  };
}

/**
 * A response body as bytes. Node writes a large string to a socket far more slowly than the same
 * bytes (a 250 KB page cost a fifth of the request's CPU in the write), and encoding it first is
 * cheap.
 *
 * @private
 */
export function encodedBody(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}
