import type { Message } from "@bufbuild/protobuf";
import { type ContextValues, createContextValues, type HandlerContext } from "@connectrpc/connect";
import {
  callServerStream,
  callUnary,
  createInProcessContext,
  type NodeRequest,
  type NodeResponse,
  type RegisteredMethod,
} from "@folio/rpc-protocols";
import type { CompiledRoute } from "./compile-routes.js";
import { isForwardedRequestHeader, setResponseHeaders } from "./rest-headers.js";
import type { UnaryAnswer } from "./rest-unary-answer.js";
import type { ServerStreamAnswer } from "./server-stream.js";

/** Context values of a request, as the transcoder's `contextValues` option gives them. @private */
export type ContextValuesOf = ((req: NodeRequest) => ContextValues) | undefined;

/**
 * Calls a unary method in-process with the request message REST built (`callUnary` of
 * `@folio/rpc-protocols`). On failure, the headers set so far go out with the error, as a handler
 * answers a failed call.
 *
 * @private
 */
export async function callUnaryInProcess(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  registered: RegisteredMethod,
  message: Message,
  contextValues: ContextValuesOf,
): Promise<UnaryAnswer> {
  const context = restContext(req, res, entry, contextValues);
  try {
    const output = await callUnary(registered, context, message);
    return { output, header: context.responseHeader, trailer: context.responseTrailer };
  } catch (error) {
    setResponseHeaders(res, context.responseHeader);
    throw error;
  }
}

/**
 * Calls a server-streaming method in-process with the request message REST built
 * (`callServerStream` of `@folio/rpc-protocols`): its messages come as the implementation yields
 * them, with no encoding between.
 *
 * @private
 */
export function callServerStreamInProcess(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  registered: RegisteredMethod,
  message: Message,
  contextValues: ContextValuesOf,
): ServerStreamAnswer {
  const context = restContext(req, res, entry, contextValues);
  return {
    messages: callServerStream(registered, context, message),
    // Set by the interceptors and the implementation by the time a message (or an error) comes.
    header: () => context.responseHeader,
  };
}

/** The context of a REST call: its headers as REST forwards them, no deadline. */
function restContext(
  req: NodeRequest,
  res: NodeResponse,
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
