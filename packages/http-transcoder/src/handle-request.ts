import type { Message } from "@bufbuild/protobuf";
import { callServerStreamThroughHandler, callUnaryThroughHandler } from "./call-handler.js";
import { type ContextValuesOf, callServerStreamInProcess, callUnaryInProcess } from "./call-in-process.js";
import type { CompiledRoute } from "./compile-routes.js";
import type { ErrorResponder } from "./error-response.js";
import type { NodeHandlerFn, NodeServerRequest, NodeServerResponse } from "./node-types.js";
import { readRequest } from "./read-request.js";
import { splitRequestTarget } from "./request-target.js";
import { asConnectError, restError, restErrorRules } from "./rest-errors.js";
import type { RouteTable } from "./route-table.js";
import { writeServerStream } from "./server-stream.js";
import { writeUnaryResponse } from "./unary-response.js";

/** What handling a request needs besides the route table. @private */
export interface RequestHandling {
  readonly maxBodyBytes: number;
  readonly contextValues: ContextValuesOf;
  readonly errors: ErrorResponder;
}

/**
 * The Node handler of a transcoder: matches a request to a route (404 and 405 otherwise), reads
 * its message, calls the method and writes the answer, or the error.
 *
 * @private
 */
export function createRequestHandler(
  table: RouteTable<CompiledRoute>,
  handling: RequestHandling,
): NodeHandlerFn {
  const { errors } = handling;
  return function handleHttpRequest(req, res) {
    const { path, query } = splitRequestTarget(req.url);
    const httpMethod = req.method ?? "GET";
    const found = table.lookup(httpMethod, path);
    switch (found.kind) {
      case "not-found":
        errors.write(req, res, restError(restErrorRules.noRoute, `no route for ${httpMethod} ${path}`));
        return;
      case "method-not-allowed":
        res.setHeader("allow", found.allowed.join(", "));
        errors.write(
          req,
          res,
          restError(restErrorRules.methodNotAllowed, `${httpMethod} is not allowed for ${path}`),
        );
        return;
    }
    readRequest(req, found.entry, found.segments, query, handling.maxBodyBytes)
      .then((message) => callAndAnswer(req, res, found.entry, message, handling))
      .catch((error: unknown) => {
        errors.write(req, res, asConnectError(error));
      });
  };
}

/** Calls the route's method, in-process when the router registered it, and writes its answer. */
async function callAndAnswer(
  req: NodeServerRequest,
  res: NodeServerResponse,
  entry: CompiledRoute,
  message: Message,
  handling: RequestHandling,
): Promise<void> {
  const { registered } = entry;
  const { contextValues } = handling;
  if (entry.route.method.methodKind === "server_streaming") {
    const stream =
      registered !== undefined
        ? callServerStreamInProcess(req, res, entry, registered, message, contextValues)
        : await callServerStreamThroughHandler(req, res, entry, message, contextValues);
    await writeServerStream(req, res, entry, stream, (error) => handling.errors.body(req, res, error));
    return;
  }
  const answer =
    registered !== undefined
      ? await callUnaryInProcess(req, res, entry, registered, message, contextValues)
      : await callUnaryThroughHandler(req, res, entry, message, contextValues);
  writeUnaryResponse(req, res, entry, answer);
}
