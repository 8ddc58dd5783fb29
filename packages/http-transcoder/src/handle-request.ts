import type { Message } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import type { AnswerReport, RequestScope } from "./answer-report.js";
import type { CompiledRoute } from "./compile-routes.js";
import type { ErrorResponder } from "./error-response.js";
import type { MethodRunner, RunningCall } from "./method-runner.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";
import { takeFieldsParameter } from "./partial-response.js";
import { readRequest } from "./read-request.js";
import { splitRequestTarget } from "./request-target.js";
import type { ResponseBodyWriter } from "./response-body.js";
import { beginRestCall, type ContextValuesOf, callServerStream, callUnary } from "./rest-call.js";
import { restErrorRules } from "./rest-error-rules.js";
import { asConnectError, restError } from "./rest-errors.js";
import { setResponseHeaders } from "./rest-headers.js";
import { writeRestAnswer } from "./rest-unary-answer.js";
import type { RouteTable } from "./route-table.js";
import type { BodySending } from "./send-body.js";
import { writeServerStream } from "./server-stream.js";

/** What handling a request needs besides the route table. @private */
export interface RequestHandling {
  readonly runner: MethodRunner;
  readonly maxBodyBytes: number;
  readonly contextValues: ContextValuesOf;
  readonly errors: ErrorResponder;
  readonly sending: BodySending;
}

/** The Node handler of a transcoder; `request`: what the server tells it of the request. */
export type HttpTranscoderHandler = (req: NodeRequest, res: NodeResponse, request?: RequestScope) => void;

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
    // The runner may refuse the call on its headers (authentication, say): a call it refuses is
    // answered without its body being read or parsed.
    let running: RunningCall | undefined;
    Promise.resolve()
      .then(() => beginRestCall(handling.runner, req, res, entry, perRequest.contextValues))
      .then((begun) => {
        running = begun;
        return readRequest(req, entry, found.segments, rest, handling.maxBodyBytes);
      })
      .then((message) =>
        callAndAnswer(req, res, entry, running as RunningCall, message, handling, partial, report),
      )
      .catch((error: unknown) => {
        running?.cancel(error);
        // What the call set before it failed (rate-limit headers, say) goes out with the failure.
        if (!res.headersSent && running !== undefined) setResponseHeaders(res, running.responseHeader);
        fail(asConnectError(error));
      });
  };
}

/** Calls the route's method and writes its answer. */
async function callAndAnswer(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  running: RunningCall,
  message: Message,
  handling: RequestHandling,
  partial: ResponseBodyWriter | undefined,
  report: AnswerReport | undefined,
): Promise<void> {
  if (entry.route.method.methodKind === "server_streaming") {
    await writeServerStream(
      req,
      res,
      entry,
      callServerStream(running, message),
      (error) => handling.errors.body(req, res, error, report),
      handling.sending.compression,
      report,
    );
    return;
  }
  const answer = await callUnary(res, running, message);
  await writeRestAnswer(req, res, entry, answer, handling.sending, partial);
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
