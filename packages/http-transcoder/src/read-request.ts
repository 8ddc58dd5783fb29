import type { JsonValue, Message } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import type { ConnectError } from "@connectrpc/connect";
import type { CompiledRoute } from "./compile-routes.js";
import type { NodeRequest } from "./node-types.js";
import { setRawBody } from "./raw-body.js";
import { isJsonContentType, readRequestBody } from "./request-body.js";
import { restErrorRules } from "./rest-error-rules.js";
import { restError } from "./rest-errors.js";

/**
 * Reads a request of a route into its request message: the body (JSON, a raw `HttpBody`, or none
 * where the route takes none), the path segments and the query string. Throws a ConnectError the
 * client is answered with: 400, 413 or 415.
 *
 * @private
 */
export async function readRequest(
  req: NodeRequest,
  entry: CompiledRoute,
  segments: readonly string[],
  query: string,
  maxBodyBytes: number,
): Promise<Message> {
  const route = entry.route;
  if (entry.rawBody !== undefined) {
    // google.api.HttpBody: the body as it is, whatever its type, with its Content-Type.
    const bytes = await readRequestBody(req, maxBodyBytes);
    const message = entry.readMessage(undefined, segments, query);
    setRawBody(reflect(route.method.input, message), entry.rawBody, req.headers["content-type"] ?? "", bytes);
    return message;
  }
  if (route.body === undefined) {
    const bytes = await readRequestBody(req, maxBodyBytes);
    if (bytes.byteLength > 0) {
      throw restError(
        restErrorRules.invalidRequest,
        `${route.httpMethod} ${route.pattern} takes no request body; send the fields in the query string`,
      );
    }
    return entry.readMessage(undefined, segments, query);
  }
  const contentType = req.headers["content-type"];
  if (contentType !== undefined && !isJsonContentType(contentType)) {
    throw unsupportedMediaType(contentType);
  }
  const bytes = await readRequestBody(req, maxBodyBytes);
  let body: JsonValue | undefined;
  if (bytes.byteLength > 0) {
    if (contentType === undefined) {
      throw unsupportedMediaType(undefined);
    }
    body = parseJson(bytes);
  }
  return entry.readMessage(body, segments, query);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(bytes: Uint8Array): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw restError(restErrorRules.invalidRequest, "request body: not valid UTF-8");
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw restError(
      restErrorRules.invalidRequest,
      `request body: malformed JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function unsupportedMediaType(contentType: string | undefined): ConnectError {
  return restError(
    restErrorRules.unsupportedMediaType,
    contentType === undefined
      ? "request body without Content-Type; send application/json"
      : `unsupported Content-Type "${contentType}"; send application/json`,
  );
}
