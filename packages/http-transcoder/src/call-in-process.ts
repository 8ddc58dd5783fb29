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
import { createInProcessContext } from "./in-process-context.js";
import type { NodeServerRequest, NodeServerResponse } from "./node-types.js";
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

/** The context of a REST call: its headers as REST forwards them, no deadline. */
function createHandlerContext(
  req: NodeServerRequest,
  res: NodeServerResponse,
  entry: CompiledRoute,
  contextValues: ContextValuesOf,
): HandlerContext {
  return createInProcessContext({
    req,
    res,
    method: entry.route.method,
    requestPath: entry.handler.requestPath,
    protocolName: "rest",
    isForwarded: isForwardedRequestHeader,
    values: contextValues?.(req) ?? createContextValues(),
  }).context;
}
