import type { DescMethod, Message } from "@bufbuild/protobuf";
import type { ContextValues } from "@connectrpc/connect";

/** A method's procedure path, as Connect and gRPC name it: `/acme.v1.Library/GetBook`. */
export function procedurePath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/**
 * How a transcoder calls the methods it serves: the one seam between REST and whatever runs a
 * method. The default, {@link createHandlerRunner}, calls the handlers of a Connect router, as a
 * Connect client in the same process would; a server with a cheaper way to call its methods
 * in-process gives its own.
 *
 * Whatever the runner, a call's interceptors see what they see on Connect, gRPC and gRPC-Web: the
 * request headers, the deadline, a signal that aborts when the client goes away, when the deadline
 * passes and when the call ends, and the headers and trailers they set.
 */
export interface MethodRunner {
  /** Whether the runner can call the method; asked at start-up for the method of every route. */
  serves(method: DescMethod): boolean;
  /**
   * Begins a call once the request's headers are known, before its body is read. A runner that
   * decides on the headers alone (authentication, say) throws the ConnectError of its refusal
   * here, and the transcoder answers with it without reading the body.
   */
  begin(call: MethodCall): RunningCall | Promise<RunningCall>;
}

/** A call the transcoder asks a {@link MethodRunner} to make: what connect-es's handler context holds. */
export interface MethodCall {
  readonly method: DescMethod;
  /** The REST request's HTTP method (`GET`, `POST`...). */
  readonly requestMethod: string;
  /** The procedure's URL: the request's origin and the method's path, `/acme.v1.Library/GetBook`. */
  readonly url: string;
  /** The request headers the call sees: the REST request's, less those of the HTTP/JSON exchange. */
  readonly requestHeader: Headers;
  /** Aborts when the client goes away, with what connect-node's request signal aborts with. */
  readonly signal: AbortSignal;
  /** The call's deadline, in milliseconds from now (the request's `Grpc-Timeout`); undefined: none. */
  readonly timeoutMs: number | undefined;
  /** The call's context values, as the transcoder's `contextValues` option (or its caller) gives them. */
  readonly contextValues: ContextValues | undefined;
}

/** A call a {@link MethodRunner} began. */
export interface RunningCall {
  /**
   * The response headers the call has set so far: before the method runs (a refusal's, say), by
   * its interceptors and implementation. The transcoder sends them with the answer, and with a
   * failure.
   */
  readonly responseHeader: Headers;
  /** The call's trailers, sent as headers (HTTP/JSON has none) once the call succeeded. */
  readonly responseTrailer: Headers;
  /** Calls a unary method; rejects with the ConnectError the call failed with. */
  unary(message: Message): Promise<Message>;
  /** Calls a server-streaming method: its messages as they come, then the error it failed with, if any. */
  serverStream(message: Message): AsyncIterable<Message>;
  /**
   * Ends a call whose method never ran (its request could not be read, say): its signal aborts
   * with `reason`, as a call that fails does.
   */
  cancel(reason: unknown): void;
}
