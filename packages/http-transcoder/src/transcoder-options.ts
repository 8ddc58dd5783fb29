import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { ConnectError, ConnectRouter, ContextValues } from "@connectrpc/connect";
import type { CompressionOptions } from "./content-coding.js";
import type { HttpErrorEnvelope } from "./error-envelope.js";
import type { HttpRoute } from "./http-route.js";
import type { HttpTranscoderJsonOptions } from "./json-options.js";
import type { MethodRunner } from "./method-runner.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";

/** Options for {@link createHttpTranscoder}. */
export interface HttpTranscoderOptions {
  /**
   * The Connect router that serves the same services over Connect, gRPC and gRPC-Web: a REST
   * request is a call of its handler, in-process, so it runs the same implementations behind the
   * same interceptors.
   */
  readonly router?: Pick<ConnectRouter, "handlers">;
  /**
   * How methods are called, instead of through `router`'s handlers (see {@link MethodRunner}):
   * for a server with a cheaper way to call its methods in-process.
   */
  readonly runner?: MethodRunner;
  /**
   * The services to serve over REST: every method with a `google.api.http` option. By default,
   * the services of `router`.
   */
  readonly services?: readonly DescService[];
  /** The routes to serve, instead of those of `services` (see {@link collectHttpRoutes}). */
  readonly routes?: readonly HttpRoute[];
  /** Context values for a request, as the option of the same name of `connectNodeAdapter`. */
  readonly contextValues?: (req: NodeRequest) => ContextValues;
  /** The largest request body read, in bytes; larger ones get 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** The HTTP status of a successful response of a method (say, 201 for a create). Default 200. */
  readonly successStatus?: (method: DescMethod) => number;
  /**
   * The id of a request, sent as `requestId` in error responses and as the `X-Request-Id`
   * response header. By default, the `X-Request-Id` response header if one is set already (by a
   * server that assigns ids), then the request header, then a random UUID.
   */
  readonly requestId?: (req: NodeRequest, res: NodeResponse) => string;
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
  /**
   * How unary answers (above the threshold) and NDJSON/SSE streams (flushed after each message)
   * are compressed for the `Accept-Encoding` of the client (br, zstd where Node has it, gzip), or
   * `false` for never. Request bodies in these codings are read whatever this says. Default: every
   * coding, unary answers above 1024 bytes.
   */
  readonly compression?: CompressionOptions | false;
  /** Send a strong `ETag` on GET answers and `304 Not Modified` for a matching `If-None-Match`. Default true. */
  readonly etags?: boolean;
  /** The `Cache-Control` of a successful GET answer (and its 304), or undefined for none. Default none. */
  readonly cacheControl?: (req: NodeRequest) => string | undefined;
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
