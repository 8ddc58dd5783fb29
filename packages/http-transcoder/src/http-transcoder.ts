import { compileRoutes } from "./compile-routes.js";
import { createCompression } from "./content-coding.js";
import { createErrorResponder } from "./error-response.js";
import { createRequestHandler, type HttpTranscoderHandler } from "./handle-request.js";
import { createHandlerRunner } from "./handler-runner.js";
import { defaultMaxBodyBytes, type HttpTranscoderOptions } from "./transcoder-options.js";

/**
 * Creates a Node request handler that serves the `google.api.http` rules of Connect services:
 * it matches a request to a route, builds the request message from the path, query string and
 * JSON body, calls the method in-process, and answers with the response message as JSON, or the
 * error envelope (`HttpErrorEnvelope`) on failure.
 *
 * Mount it on the paths of the rules (say, everything under `/api/`), next to the handler that
 * serves the same router over Connect, gRPC and gRPC-Web:
 *
 * ```ts
 * const router = createConnectRouter({ interceptors });
 * router.service(Library, impl);
 * const rest = createHttpTranscoder({ router });
 * ```
 *
 * The handler's optional third argument tells it more of a request: the call's context values, and
 * where to report the method called and the code of the answer (see {@link RequestScope}).
 *
 * Throws at start-up when a rule is invalid, two rules are ambiguous, a method with a rule has no
 * handler, or is client- or bidi-streaming.
 */
export function createHttpTranscoder(options: HttpTranscoderOptions): HttpTranscoderHandler {
  const runner =
    options.runner ?? (options.router === undefined ? undefined : createHandlerRunner(options.router));
  if (runner === undefined) {
    throw new Error("createHttpTranscoder: pass the Connect router that serves the services (or a runner)");
  }
  return createRequestHandler(compileRoutes(options, runner), {
    runner,
    maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    contextValues: options.contextValues,
    errors: createErrorResponder(options),
    sending: {
      compression: createCompression(options.compression),
      etags: options.etags ?? true,
      cacheControl: options.cacheControl,
    },
  });
}
