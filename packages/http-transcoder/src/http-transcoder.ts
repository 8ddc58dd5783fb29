import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Http2ServerResponse } from "node:http2";
import {
  type DescField,
  type DescMethod,
  type DescService,
  fromBinary,
  type JsonValue,
  type Message,
  type Registry,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import {
  Code,
  type ConnectError,
  type ContextValues,
  createContextValues,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import {
  encodeEnvelope,
  invokeUnaryImplementation,
  type UniversalHandler,
  type UniversalServerResponse,
} from "@connectrpc/connect/protocol";
import {
  asConnectError,
  connectErrorFromJson,
  errorEnvelope,
  type HttpErrorEnvelope,
  httpStatusOf,
  transcodeError,
} from "./error-envelope.js";
import { type RawBodyTarget, rawBodyTarget, rawResponseReader, setRawBody } from "./http-body.js";
import { collectHttpRoutes, type HttpRoute } from "./http-route.js";
import { isJsonContentType, type NodeServerRequest, readRequestBody } from "./request-body.js";
import { RequestHeaders } from "./request-headers.js";
import { createRequestMessageReader, type RequestMessageReader } from "./request-message.js";
import { createFieldJsonWriter, createMessageJsonWriter, type MessageJsonWriter } from "./response-json.js";
import { createRouteTable } from "./route-table.js";
import {
  connectStreamMessages,
  negotiateStreamFormat,
  type StreamFormat,
  streamContentType,
  streamError,
  streamMessage,
  writeChunk,
} from "./server-stream.js";
import type { RegisteredMethod, TranscodingRouter } from "./transcoding-router.js";

export type { NodeServerRequest } from "./request-body.js";

/**
 * The response of a Node `http`, `https` or `http2` server (the compatibility API).
 */
export type NodeServerResponse = ServerResponse | Http2ServerResponse;

/** A Node request handler, as `http.createServer()` and `http2.createServer()` take. */
export type NodeHandlerFn = (req: NodeServerRequest, res: NodeServerResponse) => void;

/** Options of the protobuf JSON mapping the transcoder reads requests and writes responses with. */
export interface HttpTranscoderJsonOptions {
  /** Message types for `google.protobuf.Any` fields, and for error details to decode. */
  readonly registry?: Registry;
  /** Write proto field names (`page_size`) instead of JSON names (`pageSize`) in responses. */
  readonly useProtoFieldName?: boolean;
  /** Write enum values as numbers instead of names in responses. */
  readonly enumAsInteger?: boolean;
}

/** Options for {@link createHttpTranscoder}. */
export interface HttpTranscoderOptions {
  /**
   * The router that serves the same services over Connect, gRPC and gRPC-Web, made with
   * {@link createTranscodingRouter}: REST requests are calls of its methods, in-process, so they
   * run the same implementations behind the same interceptors. Unary methods are called with the
   * request message itself; server-streaming ones through the router's handlers.
   */
  readonly router?: TranscodingRouter;
  /**
   * Instead of `router`: the handlers of a Connect router, `router.handlers`. Each REST request is
   * then a call of the Connect protocol to a handler, in-process, with the request message
   * encoded to binary and the response decoded from it: the same semantics, at more CPU per call.
   */
  readonly handlers?: readonly UniversalHandler[];
  /**
   * The services to serve over REST: every method with a `google.api.http` option. By default,
   * the services of `handlers`.
   */
  readonly services?: readonly DescService[];
  /** The routes to serve, instead of those of `services` (see {@link collectHttpRoutes}). */
  readonly routes?: readonly HttpRoute[];
  /** Context values for a request, as the option of the same name of `connectNodeAdapter`. */
  readonly contextValues?: (req: NodeServerRequest) => ContextValues;
  /** The largest request body read, in bytes; larger ones get 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** The HTTP status of a successful response of a method (say, 201 for a create). Default 200. */
  readonly successStatus?: (method: DescMethod) => number;
  /**
   * The id of a request, sent as `requestId` in error responses and as the `X-Request-Id`
   * response header. By default, the `X-Request-Id` response header if one is set already (by a
   * server that assigns ids), then the request header, then a random UUID.
   */
  readonly requestId?: (req: NodeServerRequest, res: NodeServerResponse) => string;
  /** Options of the JSON mapping. */
  readonly jsonOptions?: HttpTranscoderJsonOptions;
  /**
   * Send the next page of a paginated list (AIP-158) as a `Link: <...>; rel="next"` header (RFC
   * 8288) instead of `nextPageToken` in the body. It applies to the GET routes whose request has
   * a string `page_token` and whose response a string `next_page_token` (and no `response_body`):
   * the link is the request's own path and query with `pageToken` set to the next token. Default
   * false.
   */
  readonly pageLinks?: boolean;
  /**
   * The body of an error response, in place of the {@link HttpErrorEnvelope}: say, an RFC 9457
   * problem document. It receives the error (code, message, details, metadata) and the envelope
   * the transcoder would send, with the details already in their JSON form, to reshape. The status
   * and headers stay the transcoder's; the body is written with `JSON.stringify`.
   */
  readonly errorBody?: (error: ConnectError, context: ErrorBodyContext) => unknown;
  /** The `Content-Type` of error responses. Default `application/json`. */
  readonly errorContentType?: string;
}

/** What {@link HttpTranscoderOptions.errorBody} knows of an error response. */
export interface ErrorBodyContext {
  /** The response's status. */
  readonly status: number;
  /** The request's id, as in the `X-Request-Id` response header. */
  readonly requestId: string;
  /** The body the transcoder sends by default. */
  readonly envelope: HttpErrorEnvelope;
}

/** The default of {@link HttpTranscoderOptions.maxBodyBytes}: 1 MiB. */
export const defaultMaxBodyBytes = 1024 * 1024;

const requestIdHeader = "x-request-id";

// Request headers that describe the HTTP/JSON exchange, not the call: the transcoder sets its own
// for the Connect request it makes (RFC 9110, section 7.6.1 for the hop-by-hop ones).
const requestHeadersNotForwarded = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "content-length",
  "content-type",
  "content-encoding",
  "accept-encoding",
]);

// Response headers of the Connect response that describe its encoding, not the call's metadata.
const responseHeadersNotForwarded = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "accept-encoding",
  "vary",
]);

/**
 * Entry of the route table: a route with everything a request needs, compiled at start-up.
 */
interface CompiledRoute {
  readonly route: HttpRoute;
  readonly handler: UniversalHandler;
  /** The method's implementation, to call in-process with the message (unary methods of a router). */
  readonly registered: RegisteredMethod | undefined;
  readonly readMessage: RequestMessageReader;
  /**
   * The body of a response, its content type (JSON, or an `HttpBody`'s own), and the address of
   * the next page if there is one.
   */
  readonly writeResponse: (message: Message) => {
    body: string | Uint8Array;
    contentType: string;
    nextPageToken?: string;
  };
  readonly successStatus: number;
  readonly hasBody: boolean;
  /** Where the raw request body goes when it is a `google.api.HttpBody` rather than JSON. */
  readonly rawBody: RawBodyTarget | undefined;
  /** Whether responses are `google.api.HttpBody`, written as raw bytes. */
  readonly rawResponse: boolean;
}

/**
 * Creates a Node request handler that serves the `google.api.http` rules of Connect services:
 * it matches a request to a route, builds the request message from the path, query string and
 * JSON body, calls the Connect handler of the method in-process, and answers with the response
 * message as JSON, or an {@link HttpErrorEnvelope} on failure.
 *
 * Mount it on the paths of the rules (say, everything under `/api/`), next to the handler that
 * serves the same router over Connect, gRPC and gRPC-Web:
 *
 * ```ts
 * const router = createTranscodingRouter({ interceptors });
 * router.service(Library, impl);
 * const rest = createHttpTranscoder({ router });
 * ```
 *
 * Throws at start-up when a rule is invalid, two rules are ambiguous, a method with a rule has no
 * handler, or is not unary.
 */
export function createHttpTranscoder(options: HttpTranscoderOptions): NodeHandlerFn {
  const given = options.router?.handlers ?? options.handlers;
  if (given === undefined) {
    throw new Error(
      "createHttpTranscoder: pass the router (or the handlers of one) that serves the services",
    );
  }
  const handlers = new Map<string, UniversalHandler>();
  for (const handler of given) {
    handlers.set(handler.requestPath, handler);
  }
  const services = options.services ?? [...new Set(given.map((handler) => handler.service))];
  const routes = options.routes ?? collectHttpRoutes(services);
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const jsonOptions = options.jsonOptions ?? {};
  const writeOptions = {
    alwaysEmitImplicit: true,
    useProtoFieldName: jsonOptions.useProtoFieldName ?? false,
    enumAsInteger: jsonOptions.enumAsInteger ?? false,
    registry: jsonOptions.registry,
  };
  const responseJson = {
    useProtoFieldName: writeOptions.useProtoFieldName,
    enumAsInteger: writeOptions.enumAsInteger,
    registry: writeOptions.registry,
  };
  // Details are written as sent: default values left out, like the "debug" form of Connect.
  const detailWriteOptions = { ...writeOptions, alwaysEmitImplicit: false };
  const readOptions = { registry: jsonOptions.registry };
  const errorBody = options.errorBody;
  const errorContentType = options.errorContentType ?? "application/json";
  const messageWriters = new Map<DescMethod, MessageJsonWriter>();

  const compiled = routes.map((route): CompiledRoute => {
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
    const nextPageField =
      options.pageLinks === true && method.methodKind === "unary" ? nextPageTokenField(route) : undefined;
    const rawResponse = rawResponseReader(route);
    let writeJson: MessageJsonWriter;
    if (route.responseBodyField !== undefined) {
      writeJson = createFieldJsonWriter(route.responseBodyField, responseJson);
    } else if (nextPageField !== undefined) {
      writeJson = createMessageJsonWriter(method.output, responseJson, nextPageField);
    } else {
      let writer = messageWriters.get(method);
      if (writer === undefined) {
        writer = createMessageJsonWriter(method.output, responseJson);
        messageWriters.set(method, writer);
      }
      writeJson = writer;
    }
    const nextPageLocalName = nextPageField?.localName;
    return {
      route,
      handler,
      registered:
        method.methodKind === "unary" ? options.router?.registered.get(handler.requestPath) : undefined,
      readMessage: createRequestMessageReader(route, readOptions),
      writeResponse(message) {
        if (rawResponse !== undefined) {
          return rawResponse(message);
        }
        const body = writeJson(message);
        if (nextPageLocalName !== undefined) {
          const token = (message as unknown as Record<string, unknown>)[nextPageLocalName];
          if (typeof token === "string" && token !== "") {
            return { body, contentType: "application/json", nextPageToken: token };
          }
        }
        return { body, contentType: "application/json" };
      },
      successStatus: options.successStatus?.(method) ?? 200,
      hasBody: route.body !== undefined,
      rawBody: rawBodyTarget(route),
      rawResponse: rawResponse !== undefined,
    };
  });
  const table = createRouteTable(compiled);

  const requestIdOf = (req: NodeServerRequest, res: NodeServerResponse): string => {
    let id = options.requestId?.(req, res);
    if (id === undefined) {
      const fromResponse = res.getHeader(requestIdHeader);
      const fromRequest = req.headers[requestIdHeader];
      id =
        typeof fromResponse === "string"
          ? fromResponse
          : typeof fromRequest === "string" && fromRequest !== ""
            ? fromRequest
            : randomUUID();
    }
    return id;
  };

  const writeError = (req: NodeServerRequest, res: NodeServerResponse, error: ConnectError): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const requestId = requestIdOf(req, res);
    const status = httpStatusOf(error);
    error.metadata.forEach((value, key) => {
      if (!responseHeadersNotForwarded.has(key)) {
        res.setHeader(key, value);
      }
    });
    res.statusCode = status;
    res.setHeader("content-type", errorContentType);
    res.setHeader(requestIdHeader, requestId);
    if (status === 413 && req.httpVersionMajor < 2) {
      // The rest of the body is not read: the connection cannot carry another request.
      res.setHeader("connection", "close");
    }
    res.end(JSON.stringify(errorBodyOf(error, status, requestId)));
  };

  const errorBodyOf = (error: ConnectError, status: number, requestId: string): unknown => {
    const envelope = errorEnvelope(error, requestId, detailWriteOptions);
    return errorBody === undefined ? envelope : errorBody(error, { status, requestId, envelope });
  };

  /**
   * Writes the messages of a server stream as they come. An error before the first message is an
   * ordinary error response; one after it ends the stream in the stream's own format.
   */
  const writeStream = async (
    req: NodeServerRequest,
    res: NodeServerResponse,
    entry: CompiledRoute,
    response: UniversalServerResponse,
  ): Promise<void> => {
    const output = entry.route.method.output;
    const messages = connectStreamMessages(response.body ?? once(new Uint8Array(0)));
    let next = await messages.next();
    const first = next.done ? undefined : entry.writeResponse(fromBinary(output, next.value));
    const format: StreamFormat = entry.rawResponse ? "raw" : negotiateStreamFormat(req.headers.accept);
    forwardResponseHeaders(response, res);
    res.statusCode = entry.successStatus;
    if (format === "raw") {
      res.setHeader("content-type", first?.contentType ?? "application/octet-stream");
    } else {
      res.setHeader("content-type", streamContentType(format));
      res.setHeader("cache-control", "no-cache");
    }
    try {
      while (!next.done && !res.destroyed) {
        await writeChunk(
          res,
          streamMessage(format, entry.writeResponse(fromBinary(output, next.value)).body),
        );
        next = await messages.next();
      }
    } catch (thrown) {
      const error = asConnectError(thrown);
      if (format === "raw" || res.destroyed) {
        // Bytes have no room for an error: the response is cut off, which the client sees.
        res.destroy();
        return;
      }
      res.end(streamError(format, errorBodyOf(error, httpStatusOf(error), requestIdOf(req, res))));
      return;
    }
    res.end();
  };

  /**
   * Calls a unary method's implementation with the request message, through the interceptors the
   * router wraps it in, as the router's own handlers do after decoding a message, and writes its
   * answer. Headers the interceptors or the implementation set go out as response headers.
   */
  const callInProcess = async (
    req: NodeServerRequest,
    res: NodeServerResponse,
    entry: CompiledRoute,
    registered: RegisteredMethod,
    message: Message,
  ): Promise<void> => {
    const method = entry.route.method;
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const context: HandlerContext = {
      method,
      service: method.parent,
      signal: controller.signal,
      timeoutMs: noTimeout,
      requestMethod: "POST",
      requestHeader: new RequestHeaders(req.headers, isForwardedRequestHeader),
      responseHeader: new Headers(),
      responseTrailer: new Headers(),
      protocolName: "rest",
      values: options.contextValues?.(req) ?? createContextValues(),
      url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${entry.handler.requestPath}`,
    };
    let output: Message;
    try {
      output = await invokeUnaryImplementation(
        registered.spec as MethodImplSpec & { kind: "unary" },
        context,
        message,
        registered.interceptors as Interceptor[],
      );
    } catch (error) {
      // As a handler answers a failed call: the headers set so far, then the error's metadata.
      setResponseHeaders(res, context.responseHeader);
      throw error;
    }
    const { body, contentType, nextPageToken } = entry.writeResponse(output);
    setResponseHeaders(res, context.responseHeader);
    setResponseHeaders(res, context.responseTrailer);
    if (nextPageToken !== undefined) {
      res.appendHeader("link", `<${nextPageUrl(req.url ?? "/", nextPageToken)}>; rel="next"`);
    }
    res.statusCode = entry.successStatus;
    res.setHeader("content-type", contentType);
    res.end(bodyBytes(body));
  };

  const transcode = async (
    req: NodeServerRequest,
    res: NodeServerResponse,
    entry: CompiledRoute,
    segments: readonly string[],
    query: string,
  ): Promise<void> => {
    let body: JsonValue | undefined;
    const contentEncoding = req.headers["content-encoding"];
    if (contentEncoding !== undefined && contentEncoding.toLowerCase() !== "identity") {
      // RFC 9110, section 15.5.16: 415 for a content coding the server does not accept.
      throw transcodeError(Code.InvalidArgument, `unsupported Content-Encoding "${contentEncoding}"`, 415);
    }
    const method = entry.route.method;
    let message: Message;
    if (entry.rawBody !== undefined) {
      // google.api.HttpBody: the body as it is, whatever its type, with its Content-Type.
      const bytes = await readRequestBody(req, maxBodyBytes);
      message = entry.readMessage(undefined, segments, query);
      setRawBody(reflect(method.input, message), entry.rawBody, req.headers["content-type"] ?? "", bytes);
    } else if (entry.hasBody) {
      const contentType = req.headers["content-type"];
      if (contentType !== undefined && !isJsonContentType(contentType)) {
        throw unsupportedMediaType(contentType);
      }
      const bytes = await readRequestBody(req, maxBodyBytes);
      if (bytes.byteLength > 0) {
        if (contentType === undefined) {
          throw unsupportedMediaType(undefined);
        }
        body = parseJson(bytes);
      }
      message = entry.readMessage(body, segments, query);
    } else {
      const bytes = await readRequestBody(req, maxBodyBytes);
      if (bytes.byteLength > 0) {
        throw transcodeError(
          Code.InvalidArgument,
          `${entry.route.httpMethod} ${entry.route.pattern} takes no request body; send the fields in the query string`,
        );
      }
      message = entry.readMessage(body, segments, query);
    }
    if (entry.registered !== undefined) {
      await callInProcess(req, res, entry, entry.registered, message);
      return;
    }
    const streaming = method.methodKind === "server_streaming";
    // A unary call is one message; a stream's request is one enveloped message
    // (https://connectrpc.com/docs/protocol#streaming-request).
    const requestBytes = streaming
      ? encodeEnvelope(0, toBinary(method.input, message))
      : toBinary(method.input, message);

    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort();
    };
    res.once("close", onClose);
    const response = await entry.handler({
      httpVersion: req.httpVersion,
      url: `http://${req.headers.host ?? req.headers[":authority"] ?? "localhost"}${entry.handler.requestPath}`,
      method: "POST",
      header: forwardedRequestHeaders(req, requestBytes.byteLength, streaming),
      body: once(requestBytes),
      signal: controller.signal,
      contextValues: options.contextValues?.(req),
    });
    if (streaming && response.status === 200) {
      await writeStream(req, res, entry, response);
      return;
    }
    const responseBytes = await readAll(response.body);
    if (response.status !== 200) {
      throw connectErrorFrom(response, responseBytes);
    }
    const {
      body: responseBody,
      contentType,
      nextPageToken,
    } = entry.writeResponse(fromBinary(method.output, responseBytes));
    forwardResponseHeaders(response, res);
    if (nextPageToken !== undefined) {
      res.appendHeader("link", `<${nextPageUrl(req.url ?? "/", nextPageToken)}>; rel="next"`);
    }
    res.statusCode = entry.successStatus;
    res.setHeader("content-type", contentType);
    res.end(bodyBytes(responseBody));
  };

  return function handleHttpRequest(req, res) {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const httpMethod = req.method ?? "GET";
    const found = table.lookup(httpMethod, path);
    switch (found.kind) {
      case "not-found":
        writeError(req, res, transcodeError(Code.NotFound, `no route for ${httpMethod} ${path}`, 404));
        return;
      case "method-not-allowed":
        // RFC 9110, section 15.5.6: a 405 response carries Allow with the methods that are.
        res.setHeader("allow", found.allowed.join(", "));
        writeError(
          req,
          res,
          transcodeError(Code.Unimplemented, `${httpMethod} is not allowed for ${path}`, 405),
        );
        return;
    }
    transcode(req, res, found.entry, found.segments, q < 0 ? "" : url.slice(q + 1)).catch(
      (error: unknown) => {
        writeError(req, res, asConnectError(error));
      },
    );
  };
}

/**
 * The `next_page_token` field of a paginated GET route's response (AIP-158), which the
 * `pageLinks` option sends as a `Link` header; undefined for a route that is not paginated.
 */
export function nextPageTokenField(route: HttpRoute): DescField | undefined {
  if (route.httpMethod !== "GET" || route.responseBodyField !== undefined) return undefined;
  const pageToken = route.method.input.fields.find((f) => f.name === "page_token");
  const next = route.method.output.fields.find((f) => f.name === "next_page_token");
  const isString = (f: DescField | undefined) => f?.fieldKind === "scalar" && f.scalar === ScalarType.STRING;
  return isString(pageToken) && isString(next) ? next : undefined;
}

/** The request's own path and query, with the page token (under either name) replaced. */
function nextPageUrl(url: string, token: string): string {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
  query.delete("page_token");
  query.set("pageToken", token);
  return `${path}?${query.toString()}`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(bytes: Uint8Array): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw transcodeError(Code.InvalidArgument, "request body: not valid UTF-8");
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw transcodeError(
      Code.InvalidArgument,
      `request body: malformed JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function unsupportedMediaType(contentType: string | undefined): ConnectError {
  return transcodeError(
    Code.InvalidArgument,
    contentType === undefined
      ? "request body without Content-Type; send application/json"
      : `unsupported Content-Type "${contentType}"; send application/json`,
    415,
  );
}

function forwardedRequestHeaders(req: NodeServerRequest, contentLength: number, streaming: boolean): Headers {
  const header = new Headers();
  const incoming = req.headers;
  for (const name in incoming) {
    // HTTP/2 pseudo-headers (":path") are no headers; Connect and gRPC protocol headers
    // (timeouts, compression) are not the REST client's to set.
    if (
      name.charCodeAt(0) === 58 /* ":" */ ||
      requestHeadersNotForwarded.has(name) ||
      name.startsWith("connect-") ||
      name.startsWith("grpc-")
    ) {
      continue;
    }
    const value = incoming[name];
    if (typeof value === "string") {
      header.append(name, value);
    } else if (Array.isArray(value)) {
      for (const item of value) header.append(name, item);
    }
  }
  // A call of the Connect protocol, in binary: the JSON is parsed here, once, and the handler
  // decodes the binary message (https://connectrpc.com/docs/protocol#unary-request).
  header.set("content-type", streaming ? "application/connect+proto" : "application/proto");
  header.set("connect-protocol-version", "1");
  header.set("content-length", String(contentLength));
  return header;
}

/**
 * A response body as bytes. Node writes a large string to a socket far more slowly than the same
 * bytes (a 250 KB page cost a fifth of the request's CPU in the write), and encoding it first is
 * cheap.
 */
function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}

/** Whether a call sees a request header: the REST exchange's own headers are not the call's. */
function isForwardedRequestHeader(name: string): boolean {
  return (
    name.charCodeAt(0) !== 58 /* ":" */ &&
    !requestHeadersNotForwarded.has(name) &&
    !name.startsWith("connect-") &&
    !name.startsWith("grpc-")
  );
}

function noTimeout(): undefined {
  return undefined;
}

/** Sets the headers a call answered with on the REST response, but those of its encoding. */
function setResponseHeaders(res: NodeServerResponse, headers: Headers): void {
  headers.forEach((value, name) => {
    if (responseHeadersNotForwarded.has(name) || name.startsWith("connect-") || name.startsWith("grpc-")) {
      return;
    }
    res.setHeader(name.startsWith("trailer-") ? name.slice(8) : name, value);
  });
}

function forwardResponseHeaders(response: UniversalServerResponse, res: NodeServerResponse): void {
  response.header?.forEach((value, name) => {
    if (responseHeadersNotForwarded.has(name) || name.startsWith("connect-") || name.startsWith("grpc-")) {
      return;
    }
    // Connect sends the trailers of a unary call as "trailer-" headers; HTTP/JSON has no
    // trailers, so they become headers too.
    res.setHeader(name.startsWith("trailer-") ? name.slice(8) : name, value);
  });
}

function connectErrorFrom(response: UniversalServerResponse, bytes: Uint8Array): ConnectError {
  // The handler put the error's metadata into the response headers: they go back as headers.
  const metadata = new Headers();
  response.header?.forEach((value, name) => {
    if (!responseHeadersNotForwarded.has(name) && !name.startsWith("connect-") && !name.startsWith("grpc-")) {
      metadata.append(name.startsWith("trailer-") ? name.slice(8) : name, value);
    }
  });
  return connectErrorFromJson(bytes, response.status, metadata);
}

function once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      let done = false;
      return {
        next() {
          if (done) {
            return Promise.resolve({ done: true, value: undefined });
          }
          done = true;
          return Promise.resolve({ done: false, value: bytes });
        },
      };
    },
  };
}

async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  if (body === undefined) {
    return new Uint8Array(0);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    length += chunk.byteLength;
  }
  if (chunks.length === 1) {
    return chunks[0] as Uint8Array;
  }
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
