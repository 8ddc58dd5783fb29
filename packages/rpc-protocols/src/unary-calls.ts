import type { JsonWriteOptions } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import {
  clientGoneReason,
  type NodeRequest,
  type NodeResponse,
  RequestHeaders,
} from "@folio/http-transcoder";
import { codeOfError } from "./answer-code.js";
import { createMethodSerializationLookup, validateReadWriteMaxBytes } from "./connect-internals.js";
import { cachedGetAnswer, type GetCaching } from "./get-caching.js";
import { callUnary } from "./in-process/call-in-process.js";
import { createInProcessContext } from "./in-process/in-process-context.js";
import type { RegisteredMethod } from "./in-process/transcoding-router.js";
import type { ErrorLogger } from "./logger.js";
import { allowsGet, queryMessageBytes } from "./protocol-connect/get-request.js";
import { connectAnswer } from "./protocol-connect/unary-answer.js";
import { grpcAnswer } from "./protocol-grpc/unary-answer.js";
import { grpcWebAnswer } from "./protocol-grpc-web/unary-answer.js";
import { type BodyRead, bodyBytes, readBody, replayBody, singleEnvelope } from "./read-message.js";
import type { ConnectRequestOptions } from "./request-options.js";
import { type UnaryWire, unaryWireOf } from "./unary-wire.js";
import { writeUnaryAnswer } from "./write-unary-answer.js";

/** Options of {@link createUnaryCalls}: what the router was built with. */
export interface UnaryCallOptions {
  /** The router's methods, by request path, with their interceptors. */
  readonly registered: ReadonlyMap<string, RegisteredMethod>;
  readonly requestOptions: ConnectRequestOptions;
  readonly logger: ErrorLogger;
  /** What successful answers to Connect GETs tell caches (see get-caching.ts); default: an ETag only. */
  readonly getCaching?: GetCaching | undefined;
}

/** What the layer that hands a call on gives it: its context values, and where its answer's code goes. */
export interface UnaryCallScope {
  readonly values: ContextValues;
  readonly answered: (code: string) => void;
}

/** Hands a request on to connect-es's handler, with the body to read instead of the request's. */
export type Fallback = (body: AsyncIterable<Uint8Array>) => void;

/** The in-process unary calls of Connect, gRPC and gRPC-Web. */
export interface UnaryCalls {
  /** The wire of a request served in-process; undefined: connect-es's handler serves it. */
  wireOf(req: NodeRequest, requestPath: string): UnaryWire | undefined;
  /** Serves a request {@link wireOf} accepted, or hands it to `fallback` (which answers it) once read. */
  serve(
    req: NodeRequest,
    res: NodeResponse,
    path: string,
    wire: UnaryWire,
    scope: UnaryCallScope,
    fallback: Fallback,
  ): void;
}

interface Method {
  readonly spec: MethodImplSpec & { kind: "unary" };
  readonly interceptors: Interceptor[];
  readonly requestGate: RegisteredMethod["requestGate"];
  readonly serialization: ReturnType<typeof createMethodSerializationLookup>;
}

/**
 * Calls a unary method of the router in-process, as REST does, for Connect, gRPC and gRPC-Web:
 * the request message read off Node's request and decoded, the method called through the
 * router's interceptors with a context built cheaply, and the answer written in the protocol's
 * framing in one write. What connect-es's handlers do for such a call, by connect-es's own
 * protocol functions, without the per-call `Headers` copies, linked abort controllers, URL parsing
 * and async-iterable pipeline that cost as much as the call itself.
 */
export function createUnaryCalls(options: UnaryCallOptions): UnaryCalls {
  const { readMaxBytes, acceptCompression, jsonOptions, binaryOptions } = options.requestOptions;
  const limits = validateReadWriteMaxBytes(readMaxBytes, undefined, undefined);
  const methods = new Map<string, Method | undefined>();
  const methodOf = (requestPath: string): Method | undefined => {
    if (methods.has(requestPath)) return methods.get(requestPath);
    const registered = options.registered.get(requestPath);
    const method =
      registered === undefined || registered.spec.kind !== "unary"
        ? undefined
        : {
            spec: registered.spec,
            interceptors: registered.interceptors as Interceptor[],
            requestGate: registered.requestGate,
            serialization: createMethodSerializationLookup(
              registered.spec.method,
              binaryOptions,
              jsonOptions,
              limits,
            ),
          };
    methods.set(requestPath, method);
    return method;
  };

  async function call(
    req: NodeRequest,
    res: NodeResponse,
    requestPath: string,
    wire: UnaryWire,
    scope: UnaryCallScope,
    fallback: Fallback,
  ): Promise<void> {
    const method = methodOf(requestPath) as Method;
    const envelope = wire.protocol !== "connect";
    const { context, abort, end } = createInProcessContext({
      method: method.spec.method,
      requestMethod: req.method ?? "POST",
      url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${requestPath}`,
      protocolName: wire.protocol,
      requestHeader: new RequestHeaders(req.headers, notPseudoHeader),
      values: scope.values,
      timeoutMs: wire.timeoutMs,
      clientGone: { req, res, reason: () => clientGoneReason(req) },
    });
    let outcome: Uint8Array | ConnectError;
    try {
      // The gate (authentication, rate limits) decides on the headers: a call it refuses is
      // answered without its body being read, decompressed or parsed.
      await method.requestGate(context);
      const message = await requestMessageOf(req, wire, envelope ? readMaxBytes + 5 : readMaxBytes);
      if ("left" in message) {
        // connect-es answers this body; the gate's pass is in the values it gets.
        end();
        fallback(replayBody(message.left, req));
        return;
      }
      let data = message.data;
      if (message.compressed && wire.requestCompression !== null) {
        data = await wire.requestCompression.decompress(data, readMaxBytes);
      }
      const input = method.serialization.getI(wire.binary).parse(data);
      const output = await callUnary(method, context, input);
      outcome = method.serialization.getO(wire.binary).serialize(output);
      end();
    } catch (reason) {
      // As connect-es's handlers: the call's signal aborts with the failure, and what is no
      // ConnectError is an internal error.
      abort(reason);
      outcome =
        reason instanceof ConnectError
          ? reason
          : new ConnectError("internal error", Code.Internal, undefined, undefined, reason);
    }
    let answer = await answerOf(context, wire, outcome);
    if (wire.queryMessage !== undefined && outcome instanceof Uint8Array) {
      answer = cachedGetAnswer(req, res, answer, outcome, options.getCaching ?? {});
    }
    scope.answered(codeOfError(outcome instanceof ConnectError ? outcome : undefined));
    // The client went away: nothing to write to.
    if (res.writableEnded || ("stream" in res ? res.stream.destroyed : res.destroyed)) return;
    writeUnaryAnswer(res, answer);
  }

  function answerOf(context: HandlerContext, wire: UnaryWire, outcome: Uint8Array | ConnectError) {
    const min = limits.compressMinBytes;
    switch (wire.protocol) {
      case "grpc":
        return grpcAnswer(context, wire, outcome, min);
      case "grpcweb":
        return grpcWebAnswer(context, wire, outcome, min);
      default:
        return connectAnswer(context, wire, outcome, min, jsonOptions as Partial<JsonWriteOptions>);
    }
  }

  return {
    wireOf(req, requestPath) {
      const method = methodOf(requestPath);
      return method === undefined
        ? undefined
        : unaryWireOf(req, acceptCompression, allowsGet(method.spec.method));
    },
    serve(req, res, requestPath, wire, scope, fallback) {
      call(req, res, requestPath, wire, scope, fallback).catch((reason: unknown) => {
        options.logger.error({ err: reason, procedure: requestPath }, "writing the response failed");
      });
    },
  };
}

/**
 * A call's request message: a Connect GET's from its query (no body is read), any other's from its
 * body, read up to `limit` bytes; `left`: the body as read, for connect-es to answer.
 */
async function requestMessageOf(
  req: NodeRequest,
  wire: UnaryWire,
  limit: number,
): Promise<{ data: Uint8Array; compressed: boolean } | { left: BodyRead }> {
  if (wire.queryMessage !== undefined) {
    return { data: queryMessageBytes(wire.queryMessage), compressed: wire.requestCompression !== null };
  }
  const read = await readBody(req, limit);
  const body = read.complete ? bodyBytes(read) : undefined;
  return (body === undefined ? undefined : requestMessage(req, body, wire)) ?? { left: read };
}

/** The request message's bytes, or undefined for a body connect-es should answer itself. */
function requestMessage(
  req: NodeRequest,
  body: Buffer,
  wire: UnaryWire,
): { data: Uint8Array; compressed: boolean } | undefined {
  if (wire.protocol === "connect") {
    // A body shorter or longer than it said: connect-es's "promised N bytes" error.
    const length = req.headers["content-length"];
    if (length !== undefined && length !== String(body.byteLength)) return undefined;
    return { data: body, compressed: wire.requestCompression !== null };
  }
  const envelope = singleEnvelope(body);
  if (envelope === undefined) return undefined;
  const compressed = envelope.flags === 1;
  // A compressed message with no coding named: connect-es's error.
  if (compressed && wire.requestCompression === null) return undefined;
  return { data: envelope.data, compressed };
}

/** A call sees every request header but HTTP/2's pseudo-headers, as connect-node's handler gives them. */
function notPseudoHeader(name: string): boolean {
  return name.charCodeAt(0) !== 58; /* ":" */
}
