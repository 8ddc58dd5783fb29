import { fromBinary, type Message, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { NodeRequest, NodeResponse } from "@folio/rpc-protocols";
import {
  createAsyncIterable,
  encodeEnvelope,
  endStreamFlag,
  endStreamFromJson,
  pipe,
  readAllBytes,
  transformSplitEnvelope,
  type UniversalServerResponse,
} from "@folio/rpc-protocols/connect-internals";
import type { CompiledRoute } from "./compile-routes.js";
import { connectErrorFromJson } from "./error-envelope.js";
import type { ContextValuesOf } from "./rest-call.js";
import { forwardedRequestHeaders, isForwardedResponseHeader, responseHeaderName } from "./rest-headers.js";
import type { UnaryAnswer } from "./rest-unary-answer.js";
import type { ServerStreamAnswer } from "./server-stream.js";

/**
 * Calls a unary method through the router's handler, as a call of the Connect protocol in binary
 * (https://connectrpc.com/docs/protocol#unary-request): for a plain Connect router's `handlers`.
 *
 * @private
 */
export async function callUnaryThroughHandler(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  message: Message,
  contextValues: ContextValuesOf,
): Promise<UnaryAnswer> {
  const method = entry.route.method;
  const response = await callHandler(req, res, entry, toBinary(method.input, message), false, contextValues);
  const bytes = await readAllBytes(response.body ?? createAsyncIterable([]), 0xffffffff);
  if (response.status !== 200) {
    throw connectErrorFrom(response, bytes);
  }
  // A unary call's trailers are "trailer-" headers of its response.
  return { output: fromBinary(method.output, bytes), header: response.header, trailer: undefined };
}

/**
 * Calls a server-streaming method through the router's handler, as a streaming call of the Connect
 * protocol (https://connectrpc.com/docs/protocol#streaming-request), and decodes its messages as
 * they come.
 *
 * @private
 */
export async function callServerStreamThroughHandler(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  message: Message,
  contextValues: ContextValuesOf,
): Promise<ServerStreamAnswer> {
  const method = entry.route.method;
  const request = encodeEnvelope(0, toBinary(method.input, message));
  const response = await callHandler(req, res, entry, request, true, contextValues);
  const body = response.body ?? createAsyncIterable([]);
  if (response.status !== 200) {
    throw connectErrorFrom(response, await readAllBytes(body, 0xffffffff));
  }
  const messages = async function* () {
    for await (const data of connectStreamMessages(body)) yield fromBinary(method.output, data);
  };
  return { messages: messages(), header: () => response.header };
}

function callHandler(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  body: Uint8Array,
  streaming: boolean,
  contextValues: ContextValuesOf,
): Promise<UniversalServerResponse> {
  const controller = new AbortController();
  res.once("close", () => {
    // Closed before the answer was ended: the client went away. (Not `writableFinished`, which an
    // HTTP/2 stream the client reset reports true.)
    if (!res.writableEnded) controller.abort();
  });
  const header = forwardedRequestHeaders(req);
  // The JSON is parsed by the transcoder, once; the handler decodes the binary message.
  header.set("content-type", streaming ? "application/connect+proto" : "application/proto");
  header.set("connect-protocol-version", "1");
  header.set("content-length", String(body.byteLength));
  return entry.handler({
    httpVersion: req.httpVersion,
    url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${entry.handler.requestPath}`,
    method: "POST",
    header,
    body: createAsyncIterable([body]),
    signal: controller.signal,
    contextValues: contextValues?.(req),
  });
}

/** The error of a failed unary call; the handler put the error's metadata into the response headers. */
function connectErrorFrom(response: UniversalServerResponse, bytes: Uint8Array): ConnectError {
  const metadata = new Headers();
  response.header?.forEach((value, name) => {
    if (isForwardedResponseHeader(name)) metadata.append(responseHeaderName(name), value);
  });
  return connectErrorFromJson(bytes, response.status, metadata);
}

/**
 * The messages of a Connect streaming response (https://connectrpc.com/docs/protocol#streaming-response),
 * in their binary form. Throws the error its end-stream message carries, with the trailers as the
 * error's metadata.
 */
async function* connectStreamMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // The handler runs in this process: no limit but the envelope's own.
  for await (const envelope of pipe(body, transformSplitEnvelope(0xffffffff))) {
    if ((envelope.flags & endStreamFlag) === endStreamFlag) {
      const end = endStreamFromJson(envelope.data);
      if (end.error !== undefined) {
        end.metadata.forEach((value, key) => {
          end.error?.metadata.append(key, value);
        });
        throw end.error;
      }
      return;
    }
    yield envelope.data;
  }
  throw new ConnectError("the stream of the handler ended without an end-stream message", Code.Internal);
}
