import type { DescMethod, Message } from "@bufbuild/protobuf";
import { ConnectError, createContextValues } from "@connectrpc/connect";
import { type MethodRunner, procedurePath, type RunningCall } from "@folio/http-transcoder";
import { callServerStream, callUnary } from "./call-in-process.js";
import { createInProcessContext, type InProcessCall } from "./in-process-context.js";
import type { RegisteredMethod } from "./transcoding-router.js";

/**
 * The transcoder's {@link MethodRunner} for a {@link TranscodingRouter}'s methods: each REST call
 * runs the router's request gate on its headers, then the implementation through the router's
 * interceptors with the request message the transcoder built, with no encoding between (what
 * `createHandlerRunner` does through connect-es's handlers, in binary).
 */
export function createInProcessRunner(registered: ReadonlyMap<string, RegisteredMethod>): MethodRunner {
  // Found once per method, when the transcoder asks at start-up, not by a path built per call.
  const served = new Map<DescMethod, RegisteredMethod>();
  return {
    serves(method) {
      const found = registered.get(procedurePath(method));
      if (found !== undefined) served.set(method, found);
      return found !== undefined;
    },
    async begin(call) {
      const method =
        served.get(call.method) ?? (registered.get(procedurePath(call.method)) as RegisteredMethod);
      const inProcess = createInProcessContext({
        method: call.method,
        requestMethod: call.requestMethod,
        url: call.url,
        protocolName: "rest",
        requestHeader: call.requestHeader,
        values: call.contextValues ?? createContextValues(),
        timeoutMs: call.timeoutMs,
        clientGone: call.signal,
      });
      try {
        await method.requestGate(inProcess.context);
      } catch (error) {
        inProcess.abort(error);
        throw withHeaders(error, inProcess.context.responseHeader);
      }
      return runningCall(method, inProcess);
    },
  };
}

function runningCall(method: RegisteredMethod, inProcess: InProcessCall): RunningCall {
  const { context } = inProcess;
  return {
    responseHeader: context.responseHeader,
    responseTrailer: context.responseTrailer,
    async unary(message) {
      try {
        const output = await callUnary(method, context, message);
        inProcess.end();
        return output;
      } catch (error) {
        inProcess.abort(error);
        throw error;
      }
    },
    async *serverStream(message: Message) {
      try {
        yield* { [Symbol.asyncIterator]: () => callServerStream(method, context, message) };
      } catch (error) {
        inProcess.abort(error);
        throw error;
      } finally {
        // Returned early (the client went away): the call is over.
        inProcess.end();
      }
    },
    cancel: (reason) => inProcess.abort(reason),
  };
}

/** A refusal carries the headers set before it (rate-limit headers, say), as its metadata. */
function withHeaders(error: unknown, header: Headers): unknown {
  if (!(error instanceof ConnectError)) return error;
  header.forEach((value, name) => {
    if (!error.metadata.has(name)) error.metadata.set(name, value);
  });
  return error;
}
