import type { Message } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues } from "@connectrpc/connect";
import { clientGoneReason } from "./client-gone.js";
import type { CompiledRoute } from "./compile-routes.js";
import { parseGrpcTimeout } from "./grpc-timeout.js";
import type { MethodCall, MethodRunner, RunningCall } from "./method-runner.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";
import { RequestHeaders } from "./request-headers.js";
import { isForwardedRequestHeader, setResponseHeaders } from "./rest-headers.js";
import type { UnaryResult } from "./rest-unary-answer.js";
import type { ServerStreamAnswer } from "./server-stream.js";

/** Context values of a request, as the transcoder's `contextValues` option gives them. @private */
export type ContextValuesOf = ((req: NodeRequest) => ContextValues) | undefined;

/**
 * Begins the call of a REST request once its route is known, before its body is read: the runner
 * may refuse it on its headers. The call sees the request's headers less those of the HTTP/JSON
 * exchange, the deadline of its `Grpc-Timeout` header (as grpc-gateway reads it), and a signal
 * that aborts when the client goes away.
 *
 * @private
 */
export function beginRestCall(
  runner: MethodRunner,
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  contextValues: ContextValuesOf,
): RunningCall | Promise<RunningCall> {
  const timeout = req.headers["grpc-timeout"] as string | undefined;
  const timeoutMs = timeout === undefined ? undefined : parseGrpcTimeout(timeout);
  if (timeoutMs === null) {
    throw new ConnectError(`invalid grpc-timeout: ${timeout}`, Code.InvalidArgument);
  }
  const call: MethodCall = {
    method: entry.route.method,
    requestMethod: req.method ?? "GET",
    url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${entry.requestPath}`,
    requestHeader: new RequestHeaders(req.headers, isForwardedRequestHeader),
    signal: clientSignal(req, res),
    timeoutMs,
    contextValues: contextValues?.(req),
  };
  return runner.begin(call);
}

/** Calls a unary method; on failure, the headers the call set go out with the error. @private */
export async function callUnary(
  res: NodeResponse,
  running: RunningCall,
  message: Message,
): Promise<UnaryResult> {
  try {
    const output = await running.unary(message);
    return { output, header: running.responseHeader, trailer: running.responseTrailer };
  } catch (error) {
    setResponseHeaders(res, running.responseHeader);
    setResponseHeaders(res, running.responseTrailer);
    throw error;
  }
}

/** Calls a server-streaming method: its messages as they come. @private */
export function callServerStream(running: RunningCall, message: Message): ServerStreamAnswer {
  return {
    messages: running.serverStream(message)[Symbol.asyncIterator](),
    // Set by the interceptors and the implementation by the time a message (or an error) comes.
    header: () => running.responseHeader,
  };
}

/** A signal that aborts when the client goes away before its answer is complete. */
function clientSignal(req: NodeRequest, res: NodeResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    // Closed before the answer was ended: the client went away. (Not `writableFinished`, which an
    // HTTP/2 stream the client reset reports true.)
    if (!res.writableEnded) controller.abort(clientGoneReason(req));
  });
  return controller.signal;
}
