import { Code, ConnectError, type ConnectRouter, type ContextValues } from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import { splitRequestTarget, writeUnaryResponse } from "@folio/rpc-protocols";
import type { UniversalHandler } from "@folio/rpc-protocols/connect-internals";
import type { Logger } from "pino";
import { codeOfStatus, factsOf } from "../observe/request-facts.js";
import type { NodeHandler, NodeRequest, NodeResponse } from "./node-handler.js";
import type { UnaryCalls } from "./unary/unary-call.js";

/** Options of {@link createConnectHandler}. */
export interface ConnectHandlerOptions {
  /** Context values of a request (the request id). */
  readonly contextValues: (req: NodeRequest) => ContextValues;
  /** Answers requests for paths that are no procedure of the router. */
  readonly notFound: NodeHandler;
  readonly logger: Logger;
  /** Serves the unary calls it can in-process; absent: connect-es's handlers serve every call. */
  readonly unaryCalls?: UnaryCalls | undefined;
}

/**
 * Serves a router's procedures over Connect, gRPC and gRPC-Web. `connectNodeAdapter` does the
 * same but builds a router of its own from a callback; this serves the server's one router, whose
 * handlers the REST transcoder serves too. A unary call the in-process path takes
 * (`unaryWireOf` of `@folio/rpc-protocols` says which) is served there; every other request by connect-es's handler.
 */
export function createConnectHandler(router: ConnectRouter, options: ConnectHandlerOptions): NodeHandler {
  const byPath = new Map<string, UniversalHandler>(
    router.handlers.map((handler) => [handler.requestPath, handler]),
  );
  const unaryCalls = options.unaryCalls;
  return (req, res) => {
    const handler = byPath.get(splitRequestTarget(req.url).path);
    const facts = factsOf(req);
    if (handler === undefined) {
      // No such procedure: what RPC clients read a 404 as (Connect and gRPC), or a plain HTTP 404.
      facts?.answered(facts.protocol === "http" ? "not_found" : "unimplemented");
      options.notFound(req, res);
      return;
    }
    // Known before the interceptors run, for a request refused earlier (a payload that does not decode).
    facts?.called(handler.requestPath.slice(1));
    const wire = unaryCalls?.wireOf(req, handler.requestPath);
    if (unaryCalls !== undefined && wire !== undefined) {
      unaryCalls.serve(req, res, handler.requestPath, wire, (body) =>
        serveByHandler(req, res, handler, body),
      );
      return;
    }
    serveByHandler(req, res, handler, undefined);
  };

  /** connect-es's handler; `body`: the request body, when the in-process path read it already. */
  function serveByHandler(
    req: NodeRequest,
    res: NodeResponse,
    handler: UniversalHandler,
    body: AsyncIterable<Uint8Array> | undefined,
  ): void {
    const facts = factsOf(req);
    const unary = handler.method.methodKind === "unary";
    let request = universalRequestFromNodeRequest(req, res, undefined, options.contextValues(req));
    if (body !== undefined) request = { ...request, body };
    handler(request)
      .then((response) => {
        // An answer before any call exists (an unsupported content type: 415) carries no code.
        if (facts !== undefined && !facts.intercepted) facts.answered(codeOfStatus(response.status));
        return unary ? writeUnaryResponse(response, res) : universalResponseToNodeResponse(response, res);
      })
      .catch((reason: unknown) => {
        // The client went away mid-response: nothing to answer, nothing wrong with the server.
        if (ConnectError.from(reason).code === Code.Aborted) return;
        options.logger.error({ err: reason, procedure: handler.requestPath }, "writing the response failed");
      });
  }
}
