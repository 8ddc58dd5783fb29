import type { Message } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import type { InProcessCall, NodeRequest, NodeResponse, RegisteredMethod } from "@folio/rpc-protocols";
import { splitRequestTarget } from "@folio/rpc-protocols";
import type { AnswerReport, TranscodedRequest } from "./answer-report.js";
import { callServerStreamThroughHandler, callUnaryThroughHandler } from "./call-handler.js";
import type { CompiledRoute } from "./compile-routes.js";
import type { ErrorResponder } from "./error-response.js";
import { takeFieldsParameter } from "./partial-response.js";
import { readRequest } from "./read-request.js";
import type { ResponseBodyWriter } from "./response-body.js";
import {
  type ContextValuesOf,
  callServerStreamInProcess,
  callUnaryInProcess,
  restCall,
} from "./rest-call.js";
import { restErrorRules } from "./rest-error-rules.js";
import { asConnectError, restError } from "./rest-errors.js";
import { setResponseHeaders } from "./rest-headers.js";
import { type UnaryAnswer, writeUnaryResponse } from "./rest-unary-answer.js";
import type { RouteTable } from "./route-table.js";
import type { BodySending } from "./send-body.js";
import { type ServerStreamAnswer, writeServerStream } from "./server-stream.js";

/** What handling a request needs besides the route table. @private */
export interface RequestHandling {
  readonly maxBodyBytes: number;
  readonly contextValues: ContextValuesOf;
  readonly errors: ErrorResponder;
  readonly sending: BodySending;
}

/** The Node handler of a transcoder; `request`: what the server tells it of the request. */
export type HttpTranscoderHandler = (
  req: NodeRequest,
  res: NodeResponse,
  request?: TranscodedRequest,
) => void;

/**
 * The Node handler of a transcoder: matches a request to a route (404 and 405 otherwise), reads
 * its message, calls the method and writes the answer, or the error; reports the method called and
 * the code of the answer, once, where it writes the answer.
 *
 * @private
 */
export function createRequestHandler(
  table: RouteTable<CompiledRoute>,
  handling: RequestHandling,
): HttpTranscoderHandler {
  const { errors } = handling;
  return function handleHttpRequest(req, res, request) {
    const report = request?.report;
    const values = request?.contextValues;
    const perRequest = values === undefined ? handling : { ...handling, contextValues: () => values };
    const fail = (error: ConnectError) => errors.write(req, res, error, report);
    const { path, query } = splitRequestTarget(req.url);
    const httpMethod = req.method ?? "GET";
    const found = lookup(table, httpMethod, path);
    if (found.kind === "method-not-allowed" && httpMethod === "OPTIONS") {
      // What the path allows (RFC 9110, section 9.3.7); CORS preflights are the server's to answer.
      res.statusCode = 204;
      res.setHeader("allow", allowedMethods(found.allowed).join(", "));
      res.end();
      report?.answered("ok");
      return;
    }
    switch (found.kind) {
      case "not-found":
        fail(restError(restErrorRules.noRoute, `no route for ${httpMethod} ${path}`));
        return;
      case "method-not-allowed":
        res.setHeader("allow", allowedMethods(found.allowed).join(", "));
        fail(restError(restErrorRules.methodNotAllowed, `${httpMethod} is not allowed for ${path}`));
        return;
    }
    const entry = found.entry;
    let partial: ResponseBodyWriter | undefined;
    let rest = query;
    if (entry.partialResponse !== undefined) {
      try {
        const taken = takeFieldsParameter(query);
        rest = taken.query;
        if (taken.fields !== undefined) partial = entry.partialResponse(taken.fields);
      } catch (error) {
        fail(asConnectError(error));
        return;
      }
    }
    const method = entry.route.method;
    report?.called(`${method.parent.typeName}/${method.name}`);
    const { registered } = entry;
    if (registered === undefined) {
      // A plain Connect router: its handler runs the request gate, after REST read the body.
      readRequest(req, entry, found.segments, rest, handling.maxBodyBytes)
        .then((message) =>
          callAndAnswer(
            req,
            res,
            entry,
            throughHandler(req, res, entry, message, perRequest),
            perRequest,
            partial,
            report,
          ),
        )
        .catch((error: unknown) => fail(asConnectError(error)));
      return;
    }
    // The router's request gate (authentication, say) decides on the headers: a call it refuses is
    // answered without its body being read or parsed.
    const call = restCall(req, res, entry, perRequest.contextValues);
    Promise.resolve(registered.requestGate(call.context))
      .then(() => readRequest(req, entry, found.segments, rest, handling.maxBodyBytes))
      .then((message) =>
        callAndAnswer(
          req,
          res,
          entry,
          inProcess(res, registered, call, message),
          perRequest,
          partial,
          report,
        ),
      )
      .catch((error: unknown) => {
        call.abort(error);
        // What the gate set (rate-limit headers, say) goes out with a failure before the call.
        if (!res.headersSent) setResponseHeaders(res, call.context.responseHeader);
        fail(asConnectError(error));
      });
  };
}

/** How a route's method is called: in-process, or through the router's handler. */
interface MethodCall {
  unary(): Promise<UnaryAnswer>;
  serverStream(): Promise<ServerStreamAnswer> | ServerStreamAnswer;
}

/** The in-process call of a method, in `call`. */
function inProcess(res: NodeResponse, registered: RegisteredMethod, call: InProcessCall, message: Message) {
  return {
    unary: () => callUnaryInProcess(res, call, registered, message),
    serverStream: () => callServerStreamInProcess(call, registered, message),
  } satisfies MethodCall;
}

/** The call of a method through the router's handler (a plain Connect router). */
function throughHandler(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  message: Message,
  handling: RequestHandling,
) {
  return {
    unary: () => callUnaryThroughHandler(req, res, entry, message, handling.contextValues),
    serverStream: () => callServerStreamThroughHandler(req, res, entry, message, handling.contextValues),
  } satisfies MethodCall;
}

/** Calls the route's method and writes its answer. */
async function callAndAnswer(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  method: MethodCall,
  handling: RequestHandling,
  partial: ResponseBodyWriter | undefined,
  report: AnswerReport | undefined,
): Promise<void> {
  if (entry.route.method.methodKind === "server_streaming") {
    await writeServerStream(
      req,
      res,
      entry,
      await method.serverStream(),
      (error) => handling.errors.body(req, res, error, report),
      handling.sending.compression,
      report,
    );
    return;
  }
  const answer = await method.unary();
  await writeUnaryResponse(req, res, entry, answer, handling.sending, partial);
  report?.answered("ok");
}

/**
 * The route of a request. A HEAD is a route's declared for HEAD (`custom: {kind: "HEAD"}`) where
 * one matches, and otherwise the GET without its body (RFC 9110, section 9.3.2).
 */
function lookup(table: RouteTable<CompiledRoute>, httpMethod: string, path: string) {
  const found = table.lookup(httpMethod, path);
  if (httpMethod !== "HEAD" || found.kind === "found") return found;
  const get = table.lookup("GET", path);
  return get.kind === "found" ? get : found;
}

/** The methods of a path: its routes', HEAD where GET is, and OPTIONS. */
function allowedMethods(routes: readonly string[]): string[] {
  const allowed = new Set(routes);
  if (allowed.has("GET")) allowed.add("HEAD");
  allowed.add("OPTIONS");
  return [...allowed].sort();
}
