import type { DescMethod } from "@bufbuild/protobuf";
import type { RegisteredMethod } from "@folio/rpc-protocols";
import type { UniversalHandler } from "@folio/rpc-protocols/connect-internals";
import { hasRawResponse, type RawBodyTarget, rawBodyTarget } from "./http-body.js";
import { collectHttpRoutes, type HttpRoute } from "./http-route.js";
import { acceptsFieldsParameter } from "./http-semantics.js";
import { createPartialResponseWriters } from "./partial-response.js";
import { createRequestMessageReader, type RequestMessageReader } from "./request-message.js";
import { createResponseBodyWriter, type ResponseBodyWriter } from "./response-body.js";
import type { MessageJsonWriter } from "./response-json.js";
import { createRouteTable, type RouteTable } from "./route-table.js";
import type { HttpTranscoderOptions } from "./transcoder-options.js";

/** A route with everything a request of it needs, compiled at start-up. @private */
export interface CompiledRoute {
  readonly route: HttpRoute;
  /** The router's handler of the method (Connect, gRPC, gRPC-Web). */
  readonly handler: UniversalHandler;
  /** The method's implementation, to call in-process with the message (methods of a `router`). */
  readonly registered: RegisteredMethod | undefined;
  readonly readMessage: RequestMessageReader;
  readonly writeResponse: ResponseBodyWriter;
  /** The writer of the fields a `fields` parameter names (AIP-157), where the route takes one. */
  readonly partialResponse: ((fields: string) => ResponseBodyWriter) | undefined;
  readonly successStatus: number;
  /** Where the raw request body goes when it is a `google.api.HttpBody` rather than JSON. */
  readonly rawBody: RawBodyTarget | undefined;
  /** Whether responses are `google.api.HttpBody`, written as raw bytes. */
  readonly rawResponse: boolean;
}

/**
 * Compiles the routes a transcoder serves into a route table. Throws when a route is not served:
 * a client- or bidi-streaming method, a method without a handler, two ambiguous routes.
 *
 * @private
 */
export function compileRoutes(options: HttpTranscoderOptions): RouteTable<CompiledRoute> {
  const given = options.router?.handlers ?? options.handlers;
  if (given === undefined) {
    throw new Error(
      "createHttpTranscoder: pass the router (or the handlers of one) that serves the services",
    );
  }
  const handlers = new Map(given.map((handler) => [handler.requestPath, handler]));
  const services = options.services ?? [...new Set(given.map((handler) => handler.service))];
  const jsonOptions = options.jsonOptions ?? {};
  const readOptions = { registry: jsonOptions.registry };
  const responseBodyOptions = {
    json: {
      useProtoFieldName: jsonOptions.useProtoFieldName ?? false,
      enumAsInteger: jsonOptions.enumAsInteger ?? false,
      registry: jsonOptions.registry,
    },
    pageLinks: options.pageLinks === true,
    messageWriters: new Map<DescMethod, MessageJsonWriter>(),
  };
  const compiled = (options.routes ?? collectHttpRoutes(services)).map((route): CompiledRoute => {
    const handler = servedHandler(route, handlers);
    return {
      route,
      handler,
      registered: options.router?.registered.get(handler.requestPath),
      readMessage: createRequestMessageReader(route, readOptions),
      writeResponse: createResponseBodyWriter(route, responseBodyOptions),
      partialResponse: acceptsFieldsParameter(route, hasRawResponse(route))
        ? createPartialResponseWriters(route, (selection) =>
            createResponseBodyWriter(route, responseBodyOptions, selection),
          )
        : undefined,
      successStatus: options.successStatus?.(route.method) ?? 200,
      rawBody: rawBodyTarget(route),
      rawResponse: hasRawResponse(route),
    };
  });
  return createRouteTable(compiled);
}

/** The handler of a route's method; throws for a method REST cannot serve or no handler serves. */
function servedHandler(route: HttpRoute, handlers: ReadonlyMap<string, UniversalHandler>): UniversalHandler {
  const method = route.method;
  const name = `${method.parent.typeName}.${method.name}`;
  if (method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming") {
    throw new Error(
      `google.api.http rule of ${name}: ${method.methodKind} methods cannot be served over REST, where a request is one message; only unary and server-streaming methods can`,
    );
  }
  const handler = handlers.get(`/${method.parent.typeName}/${method.name}`);
  if (handler === undefined) {
    throw new Error(
      `google.api.http rule of ${name}: no handler for the method; pass the handlers of the Connect router that serves it`,
    );
  }
  return handler;
}
