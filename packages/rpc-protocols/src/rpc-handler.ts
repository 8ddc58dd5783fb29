import { Code, ConnectError, type ConnectRouter, type ContextValues } from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { AnswerReport, NodeHandler, NodeRequest, NodeResponse } from "@folio/http-transcoder";
import { splitRequestTarget } from "@folio/http-transcoder";
import { codeOfCallEnd, reportedCodeFromHttpStatus } from "./answer-code.js";
import { callEndKey } from "./answered-code-gate.js";
import type { UniversalHandler } from "./connect-internals.js";
import { rpcProtocolOf } from "./detect-protocol.js";
import type { ErrorLogger } from "./logger.js";
import type { UnaryCalls } from "./unary-calls.js";
import { writeUnaryResponse } from "./write-unary-answer.js";

/** Options of {@link createRpcHandler}. */
export interface RpcHandlerOptions {
  /** Answers requests for paths that are no procedure of the router. */ readonly notFound: NodeHandler;
  readonly logger: ErrorLogger;
  /** Serves the unary calls it can in-process; absent: connect-es's handlers serve every call. */
  readonly unaryCalls?: UnaryCalls | undefined;
}

/**
 * Answers connect-es gives before any call exists (unsupported media type, method not allowed,
 * HTTP version not supported): statuses no call's code maps to, so the status is the code.
 */
const ANSWERED_BEFORE_A_CALL = new Set([405, 415, 505]);

/**
 * What the server tells the RPC handler of one request: its call's context values (made once the
 * request is known to be a call), and where to report what was answered.
 */
export interface RpcRequestScope {
  readonly contextValues: () => ContextValues;
  readonly report: AnswerReport;
}

/** The Node handler of {@link createRpcHandler}. */
export type RpcHandler = (req: NodeRequest, res: NodeResponse, scope: RpcRequestScope) => void;

/**
 * Serves a router's procedures over Connect, gRPC and gRPC-Web. `connectNodeAdapter` does the
 * same but builds a router of its own from a callback; this serves the server's one router, whose
 * handlers the REST transcoder serves too. A unary call the in-process path takes
 * (`unaryWireOf` of `@folio/rpc-protocols` says which) is served there; every other request by
 * connect-es's handler. Reports the RPC called, and hands the report on to whichever of the two answers.
 */
export function createRpcHandler(router: ConnectRouter, options: RpcHandlerOptions): RpcHandler {
  const byPath = new Map<string, UniversalHandler>(
    router.handlers.map((handler) => [handler.requestPath, handler]),
  );
  const unaryCalls = options.unaryCalls;
  return (req, res, scope) => {
    const { report } = scope;
    const handler = byPath.get(splitRequestTarget(req.url).path);
    if (handler === undefined) {
      // No such procedure: what RPC clients read a 404 as (Connect and gRPC), or a plain HTTP 404.
      report.answered(rpcProtocolOf(req) === "http" ? "not_found" : "unimplemented");
      options.notFound(req, res);
      return;
    }
    // Known before the call, for a request refused before it (a payload that does not decode).
    report.called(handler.requestPath.slice(1));
    const wire = unaryCalls?.wireOf(req, handler.requestPath);
    if (unaryCalls !== undefined && wire !== undefined) {
      const call = {
        values: scope.contextValues(),
        answered: report.answered.bind(report),
      };
      unaryCalls.serve(req, res, handler.requestPath, wire, call, (body) =>
        serveByHandler(req, res, handler, scope, body, call.values),
      );
      return;
    }
    serveByHandler(req, res, handler, scope, undefined, undefined);
  };

  /**
   * connect-es's handler; `body`: the request body, when the in-process path read it already, and
   * `given` the context values of that call (which carry its pass of the request gate).
   * connect-es answers, and tells no one the code: the router's request gate reads it off the
   * call's end (see `answered-code-gate.ts`); an answer given before any call, off its status.
   */
  function serveByHandler(
    req: NodeRequest,
    res: NodeResponse,
    handler: UniversalHandler,
    scope: RpcRequestScope,
    body: AsyncIterable<Uint8Array> | undefined,
    given: ContextValues | undefined,
  ): void {
    const unary = handler.method.methodKind === "unary";
    const { report } = scope;
    const values = (given ?? scope.contextValues()).set(callEndKey, (reason: unknown) =>
      report.answered(codeOfCallEnd(reason, clientGone(res))),
    );
    let request = universalRequestFromNodeRequest(req, res, undefined, values);
    if (body !== undefined) request = { ...request, body };
    handler(request)
      .then((response) => {
        if (ANSWERED_BEFORE_A_CALL.has(response.status))
          report.answered(reportedCodeFromHttpStatus(response.status));
        return unary ? writeUnaryResponse(response, res) : universalResponseToNodeResponse(response, res);
      })
      .catch((reason: unknown) => {
        // The client went away mid-response: nothing to answer, nothing wrong with the server.
        if (ConnectError.from(reason).code === Code.Aborted) return;
        options.logger.error({ err: reason, procedure: handler.requestPath }, "writing the response failed");
      });
  }
}

/** Whether the client went away before its answer was sent. */
function clientGone(res: NodeResponse): boolean {
  return !res.writableEnded && ("stream" in res ? res.stream.destroyed : res.destroyed);
}
