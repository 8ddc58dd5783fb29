import type { Message } from "@bufbuild/protobuf";
import { type ContextValues, createContextValues } from "@connectrpc/connect";
import {
  callServerStream,
  callUnary,
  createInProcessContext,
  type InProcessCall,
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
 * `@folio/rpc-protocols`), in the call's context (see {@link restCall}). On failure, the headers
 * set so far go out with the error, as a handler answers a failed call.
 *
 * @private
 */
export async function callUnaryInProcess(
  res: NodeResponse,
  call: InProcessCall,
  registered: RegisteredMethod,
  message: Message,
): Promise<UnaryAnswer> {
  const { context } = call;
  try {
    const output = await callUnary(registered, context, message);
    call.end();
    return { output, header: context.responseHeader, trailer: context.responseTrailer };
  } catch (error) {
    // As connect-es's handlers: the call's signal aborts with the failure, so that an interceptor
    // that cleans up on it does so on every protocol.
    call.abort(error);
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
  call: InProcessCall,
  registered: RegisteredMethod,
  message: Message,
): ServerStreamAnswer {
  const { context } = call;
  return {
    messages: callServerStream(registered, context, message),
    // Set by the interceptors and the implementation by the time a message (or an error) comes.
    header: () => context.responseHeader,
  };
}

/**
 * The call of a REST request, made once its route is known and before its body is read (the
 * router's request gate runs in it): its headers as REST forwards them, no deadline.
 *
 * @private
 */
export function restCall(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  contextValues: ContextValuesOf,
): InProcessCall {
  return createInProcessContext({
    req,
    res,
    method: entry.route.method,
    requestPath: entry.handler.requestPath,
    protocolName: "rest",
    isForwarded: isForwardedRequestHeader,
    values: contextValues?.(req) ?? createContextValues(),
  });
}
