import { type Compression, compressionNegotiate } from "@connectrpc/connect/protocol";
import {
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  headerTimeout as headerConnectTimeout,
  headerUnaryAcceptEncoding,
  headerUnaryEncoding,
  parseTimeout as parseConnectTimeout,
} from "@connectrpc/connect/protocol-connect";
import {
  headerAcceptEncoding as headerGrpcAcceptEncoding,
  headerEncoding as headerGrpcEncoding,
  headerTimeout as headerGrpcTimeout,
  parseTimeout as parseGrpcTimeout,
} from "@connectrpc/connect/protocol-grpc";
import type { NodeRequest } from "../node-handler.js";

/** The protocols of the fast path, by connect-es's names (a call's `protocolName`). */
export type WireProtocol = "connect" | "grpc" | "grpcweb";

/** How one unary request is read and answered: its protocol, codec, codings and deadline. */
export interface UnaryWire {
  readonly protocol: WireProtocol;
  /** Binary protobuf; false: JSON. */
  readonly binary: boolean;
  /** The content type of the answer. */
  readonly contentType: string;
  /** The coding of the request message; null: none. */
  readonly requestCompression: Compression | null;
  /** The coding of the answer (when it is large enough); null: none. */
  readonly responseCompression: Compression | null;
  /** The call's deadline from now; undefined: none. */
  readonly timeoutMs: number | undefined;
}

interface WireType {
  readonly protocol: WireProtocol;
  readonly binary: boolean;
  readonly contentType: string;
  /** Only over HTTP/2 (gRPC's trailers). */
  readonly http2: boolean;
}

/**
 * The request content types of the fast path, as clients send them; any other spelling connect-es
 * accepts (a charset parameter, capitals, gRPC-Web's text form) goes to connect-es.
 */
const TYPES = new Map<string, WireType>([
  [
    "application/grpc",
    { protocol: "grpc", binary: true, contentType: "application/grpc+proto", http2: true },
  ],
  [
    "application/grpc+proto",
    { protocol: "grpc", binary: true, contentType: "application/grpc+proto", http2: true },
  ],
  [
    "application/grpc+json",
    { protocol: "grpc", binary: false, contentType: "application/grpc+json", http2: true },
  ],
  [
    "application/grpc-web",
    { protocol: "grpcweb", binary: true, contentType: "application/grpc-web+proto", http2: false },
  ],
  [
    "application/grpc-web+proto",
    { protocol: "grpcweb", binary: true, contentType: "application/grpc-web+proto", http2: false },
  ],
  [
    "application/proto",
    { protocol: "connect", binary: true, contentType: contentTypeUnaryProto, http2: false },
  ],
  [
    "application/json",
    { protocol: "connect", binary: false, contentType: contentTypeUnaryJson, http2: false },
  ],
]);

/**
 * The boundary of the fast path: the wire of a unary request it serves, or undefined for every
 * request that connect-es's handler answers as before (a method other than POST, Connect's GET, an
 * unusual content type, an unknown coding, a malformed timeout: whatever connect-es refuses, it
 * refuses itself). Streaming methods never get here.
 */
export function unaryWireOf(
  req: NodeRequest,
  acceptCompression: readonly Compression[],
): UnaryWire | undefined {
  if (req.method !== "POST") return undefined;
  const type = TYPES.get(req.headers["content-type"] ?? "");
  if (type === undefined || (type.http2 && !("stream" in req))) return undefined;
  const names = type.protocol === "connect" ? CONNECT_HEADERS : GRPC_HEADERS;
  const requested = headerOf(req, names.encoding);
  const accepted = headerOf(req, names.acceptEncoding);
  const rawTimeout = headerOf(req, names.timeout);
  if (requested === undefined || accepted === undefined || rawTimeout === undefined) return undefined;
  const compression = compressionNegotiate(
    acceptCompression as Compression[],
    requested,
    accepted,
    names.acceptEncoding,
  );
  if (compression.error !== undefined) return undefined;
  const timeout = names.parseTimeout(rawTimeout, Number.MAX_SAFE_INTEGER);
  if (timeout.error !== undefined) return undefined;
  return {
    protocol: type.protocol,
    binary: type.binary,
    contentType: type.contentType,
    requestCompression: compression.request,
    responseCompression: compression.response,
    timeoutMs: timeout.timeoutMs,
  };
}

/** The request headers a protocol reads its codings and deadline from (lower case, as Node's). */
const CONNECT_HEADERS = {
  encoding: headerUnaryEncoding.toLowerCase(),
  acceptEncoding: headerUnaryAcceptEncoding.toLowerCase(),
  timeout: headerConnectTimeout.toLowerCase(),
  parseTimeout: parseConnectTimeout,
};
const GRPC_HEADERS = {
  encoding: headerGrpcEncoding.toLowerCase(),
  acceptEncoding: headerGrpcAcceptEncoding.toLowerCase(),
  timeout: headerGrpcTimeout.toLowerCase(),
  parseTimeout: parseGrpcTimeout,
};

/** A request header's value, null when absent, undefined when repeated (left to connect-es). */
function headerOf(req: NodeRequest, name: string): string | null | undefined {
  const value = req.headers[name];
  if (value === undefined) return null;
  return typeof value === "string" ? value : undefined;
}
