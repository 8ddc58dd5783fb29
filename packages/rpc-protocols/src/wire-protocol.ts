/** The protocols of the in-process unary path, by connect-es's names (a call's `protocolName`). */
export type WireProtocol = "connect" | "grpc" | "grpcweb";

/** What a request content type the in-process path serves says: protocol, codec, the answer's type. */
export interface WireType {
  readonly protocol: WireProtocol;
  /** Binary protobuf; false: JSON. */
  readonly binary: boolean;
  /** The content type of the answer. */
  readonly contentType: string;
  /** Only over HTTP/2 (gRPC's trailers). */
  readonly http2: boolean;
}

/** The request headers a protocol reads its codings and deadline from (lower case, as Node's). */
export interface WireHeaders {
  readonly encoding: string;
  readonly acceptEncoding: string;
  readonly timeout: string;
  /** The timeout header's value in milliseconds, or the error connect-es answers for it. */
  readonly parseTimeout: (
    value: string | null,
    maxTimeoutMs: number,
  ) => { timeoutMs?: number | undefined; error?: unknown };
}
