import type { Message } from "@bufbuild/protobuf";
import {
  type ContextValues,
  createContextValues,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import {
  createAsyncIterable,
  invokeUnaryImplementation,
  transformInvokeImplementation,
} from "@connectrpc/connect/protocol";
import type { CompiledRoute } from "./compile-routes.js";
import type { NodeServerRequest, NodeServerResponse } from "./node-types.js";
import { RequestHeaders } from "./request-headers.js";
import { isForwardedRequestHeader, setResponseHeaders } from "./rest-headers.js";
import type { ServerStreamAnswer } from "./server-stream.js";
import type { RegisteredMethod } from "./transcoding-router.js";
import type { UnaryAnswer } from "./unary-response.js";

/** Context values of a request, as the transcoder's `contextValues` option gives them. @private */
export type ContextValuesOf = ((req: NodeServerRequest) => ContextValues) | undefined;

/**
 * Calls a unary method's implementation with the request message, through the interceptors the
 * router wraps it in, as the router's own handlers do after decoding a message
 * (`invokeUnaryImplementation` of connect-es). On failure, the headers set so far go out with the
 * error, as a handler answers a failed call.
 *
 * @private
 */
export async function callUnaryInProcess(
  req: NodeServerRequest,
  res: NodeServerResponse,
  entry: CompiledRoute,
  registered: RegisteredMethod,
  message: Message,
  contextValues: ContextValuesOf,
): Promise<UnaryAnswer> {
  const context = createHandlerContext(req, res, entry, contextValues);
  try {
    const output = await invokeUnaryImplementation(
      registered.spec as MethodImplSpec & { kind: "unary" },
      context,
      message,
      registered.interceptors as Interceptor[],
    );
    return { output, header: context.responseHeader, trailer: context.responseTrailer };
  } catch (error) {
    setResponseHeaders(res, context.responseHeader);
    throw error;
  }
}

/**
 * Calls a server-streaming method's implementation with the request message, through the
 * router's interceptors, as the router's own handlers do (`transformInvokeImplementation` of
 * connect-es): its messages come as the implementation yields them, with no encoding between.
 *
 * @private
 */
export function callServerStreamInProcess(
  req: NodeServerRequest,
  res: NodeServerResponse,
  entry: CompiledRoute,
  registered: RegisteredMethod,
  message: Message,
  contextValues: ContextValuesOf,
): ServerStreamAnswer {
  const context = createHandlerContext(req, res, entry, contextValues);
  const invoke = transformInvokeImplementation(
    registered.spec,
    context,
    registered.interceptors as Interceptor[],
  );
  const messages = invoke(createAsyncIterable([message]))[Symbol.asyncIterator]();
  return {
    messages: messages as AsyncIterator<Message>,
    // Set by the interceptors and the implementation by the time a message (or an error) comes.
    header: () => context.responseHeader,
  };
}

/**
 * The context a method is called in: the REST request's method, its headers as the call sees them
 * (read from Node's headers when asked), no deadline, and a signal that aborts when the client goes
 * away before the response is complete.
 */
function createHandlerContext(
  req: NodeServerRequest,
  res: NodeServerResponse,
  entry: CompiledRoute,
  contextValues: ContextValuesOf,
): HandlerContext {
  const method = entry.route.method;
  const controller = new AbortController();
  res.once("close", () => {
    // Closed before the answer was ended: the client went away. (Not `writableFinished`, which an
    // HTTP/2 stream the client reset reports true.)
    if (!res.writableEnded) controller.abort();
  });
  return {
    method,
    service: method.parent,
    signal: controller.signal,
    timeoutMs: noTimeout,
    requestMethod: req.method ?? "GET",
    requestHeader: new RequestHeaders(req.headers, isForwardedRequestHeader),
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    protocolName: "rest",
    values: contextValues?.(req) ?? createContextValues(),
    url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${entry.handler.requestPath}`,
  };
}

function noTimeout(): undefined {
  return undefined;
}
