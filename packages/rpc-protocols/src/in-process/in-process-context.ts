import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import type { NodeRequest, NodeResponse } from "../node-types.js";
import { RequestHeaders } from "./request-headers.js";

/** What {@link createInProcessContext} builds a call's context of. */
export interface InProcessContextInit {
  readonly req: NodeRequest;
  readonly res: NodeResponse;
  readonly method: DescMethod;
  /** The procedure's path, `/acme.v1.Library/GetBook`. */
  readonly requestPath: string;
  /** `rest`, or the RPC protocol's name as connect-es gives it: `connect`, `grpc`, `grpcweb`. */
  readonly protocolName: string;
  /** Whether the call sees a request header (its lower-case name) at all. */
  readonly isForwarded: (name: string) => boolean;
  readonly values: ContextValues;
  /** The call's deadline, from now; undefined: none. 0 or less: passed already. */
  readonly timeoutMs?: number | undefined;
  /** The reason the signal aborts with when the client goes away before the response is complete. */
  readonly closeReason?: () => unknown;
}

/** A call's context, and what ends it. */
export interface InProcessCall {
  readonly context: HandlerContext;
  /** Aborts the call's signal (a failure decided outside the interceptors), and ends the deadline. */
  abort(reason: unknown): void;
  /** The call is over: its deadline timer, if any, is released. */
  end(): void;
}

/**
 * The context a method is called in when the server calls it in-process (REST, and the unary
 * in-process path of Connect, gRPC and gRPC-Web): the request's headers as the call sees them (read from
 * Node's headers when asked), the deadline, and a signal that aborts when the client goes away or
 * the deadline passes. What connect-es's `createHandlerContext` builds too, without copying every
 * header into a `Headers` and linking three abort controllers for each call.
 */
export function createInProcessContext(init: InProcessContextInit): InProcessCall {
  const { req, res, method } = init;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timeoutMs: () => number | undefined = noTimeout;
  if (init.timeoutMs !== undefined) {
    const deadline = Date.now() + init.timeoutMs;
    timeoutMs = () => deadline - Date.now();
    // As connect-es's deadline signal: its reason is the error the call fails with.
    const expire = () => controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
    if (init.timeoutMs <= 0) expire();
    else timer = setTimeout(expire, init.timeoutMs);
  }
  res.once("close", () => {
    // Closed before the answer was ended: the client went away. (Not `writableFinished`, which an
    // HTTP/2 stream the client reset reports true.)
    if (!res.writableEnded && !controller.signal.aborted) controller.abort(init.closeReason?.());
  });
  const context: HandlerContext = {
    method,
    service: method.parent,
    signal: controller.signal,
    timeoutMs,
    requestMethod: req.method ?? "POST",
    requestHeader: new RequestHeaders(req.headers, init.isForwarded),
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    protocolName: init.protocolName,
    values: init.values,
    url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${init.requestPath}`,
  };
  const end = () => {
    if (timer !== undefined) clearTimeout(timer);
  };
  return {
    context,
    abort(reason) {
      end();
      if (!controller.signal.aborted) controller.abort(reason);
    },
    end,
  };
}

function noTimeout(): undefined {
  return undefined;
}
