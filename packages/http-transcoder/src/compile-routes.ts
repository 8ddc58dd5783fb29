import type { DescMethod } from "@bufbuild/protobuf";
import { hasRawResponse, type RawBodyTarget, rawBodyTarget } from "./http-body.js";
import { collectHttpRoutes, type HttpRoute } from "./http-route.js";
import { acceptsFieldsParameter } from "./http-semantics.js";
import { type MethodRunner, procedurePath } from "./method-runner.js";
import { createPartialResponseWriters } from "./partial-response.js";
import { createRequestMessageReader, type RequestMessageReader } from "./request-message.js";
import { createResponseBodyWriter, type ResponseBodyWriter } from "./response-body.js";
import type { MessageJsonWriter } from "./response-json.js";
import { createRouteTable, type RouteTable } from "./route-table.js";
import type { HttpTranscoderOptions } from "./transcoder-options.js";

/** A route with everything a request of it needs, compiled at start-up. @private */
export interface CompiledRoute {
  readonly route: HttpRoute;
  /** The procedure's path, `/acme.v1.Library/GetBook`. */
  readonly requestPath: string;
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
 * a client- or bidi-streaming method, a method the runner does not call, two ambiguous routes.
 *
 * @private
 */
export function compileRoutes(
  options: HttpTranscoderOptions,
  runner: MethodRunner,
): RouteTable<CompiledRoute> {
  const services = options.services ?? [
    ...new Set((options.router?.handlers ?? []).map((handler) => handler.service)),
  ];
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
    assertServed(route, runner);
    return {
      route,
      requestPath: procedurePath(route.method),
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

/** Throws for a route whose method REST cannot serve, or the runner does not call. */
function assertServed(route: HttpRoute, runner: MethodRunner): void {
  const method = route.method;
  const name = `${method.parent.typeName}.${method.name}`;
  if (method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming") {
    throw new Error(
      `google.api.http rule of ${name}: ${method.methodKind} methods cannot be served over REST, where a request is one message; only unary and server-streaming methods can`,
    );
  }
  if (!runner.serves(method)) {
    throw new Error(
      `google.api.http rule of ${name}: no handler for the method; pass the Connect router that serves it`,
    );
  }
}
