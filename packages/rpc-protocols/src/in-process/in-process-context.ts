import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import type { NodeRequest, NodeResponse } from "@folio/http-transcoder";

/** What {@link createInProcessContext} builds a call's context of. */
export interface InProcessContextInit {
  readonly method: DescMethod;
  /** The request's HTTP method. */
  readonly requestMethod: string;
  /** The procedure's URL: the request's origin and path, `/acme.v1.Library/GetBook`. */
  readonly url: string;
  /** `rest`, or the RPC protocol's name as connect-es gives it: `connect`, `grpc`, `grpcweb`. */
  readonly protocolName: string;
  /** The request headers the call sees. */
  readonly requestHeader: Headers;
  readonly values: ContextValues;
  /** The call's deadline, from now; undefined: none. 0 or less: passed already. */
  readonly timeoutMs?: number | undefined;
  /**
   * What tells that the client went away: a signal (a REST call's, from the transcoder), or the
   * exchange to watch, with the reason the call's signal then aborts with.
   */
  readonly clientGone:
    | AbortSignal
    | { readonly req: NodeRequest; readonly res: NodeResponse; readonly reason: () => unknown };
}

/** A call's context, and what ends it. */
export interface InProcessCall {
  readonly context: HandlerContext;
  /** The call failed: its signal aborts with `reason`, and its deadline ends. */
  abort(reason: unknown): void;
  /** The call is over: its signal aborts (as connect-es's handlers abort it), and its deadline ends. */
  end(): void;
}

/**
 * What a call's signal aborts with when the call ends well: what `abort()` without a reason gives,
 * as connect-es's handlers end a call, built once (a DOMException captures a stack).
 */
const callEnded = new DOMException("This operation was aborted", "AbortError");

/**
 * The context a method is called in when the server calls it in-process (REST, and the unary
 * in-process path of Connect, gRPC and gRPC-Web): the request's headers as the call sees them,
 * the deadline, and a signal that aborts when the client goes away, when the deadline passes and
 * when the call ends, as connect-es's `createHandlerContext` and handlers give it, without linking
 * three abort controllers for each call.
 */
export function createInProcessContext(init: InProcessContextInit): InProcessCall {
  const { method } = init;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timeoutMs: () => number | undefined = noTimeout;
  if (init.timeoutMs !== undefined) {
    const deadline = Date.now() + init.timeoutMs;
    timeoutMs = () => deadline - Date.now();
    // As connect-es's deadline signal: its reason is the error the call fails with.
    const expire = () => controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
    if (init.timeoutMs <= 0) expire();
    // A timer longer than 2^31 - 1 ms fires at once in Node; a longer deadline (gRPC's header can
    // say 11,000 years) waits that long, which no call lasts.
    else timer = setTimeout(expire, Math.min(init.timeoutMs, 2 ** 31 - 1));
  }
  const gone = init.clientGone;
  if (gone instanceof AbortSignal) {
    const onGone = () => {
      if (!controller.signal.aborted) controller.abort(gone.reason);
    };
    if (gone.aborted) onGone();
    else gone.addEventListener("abort", onGone, { once: true, signal: controller.signal });
  } else {
    gone.res.once("close", () => {
      // Closed before the answer was ended: the client went away. (Not `writableFinished`, which
      // an HTTP/2 stream the client reset reports true.)
      if (!gone.res.writableEnded && !controller.signal.aborted) controller.abort(gone.reason());
    });
  }
  const context: HandlerContext = {
    method,
    service: method.parent,
    signal: controller.signal,
    timeoutMs,
    requestMethod: init.requestMethod,
    requestHeader: init.requestHeader,
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    protocolName: init.protocolName,
    values: init.values,
    url: init.url,
  };
  const abort = (reason: unknown) => {
    if (timer !== undefined) clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(reason);
  };
  return { context, abort, end: () => abort(callEnded) };
}

function noTimeout(): undefined {
  return undefined;
}
