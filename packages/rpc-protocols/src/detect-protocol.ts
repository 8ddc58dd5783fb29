import type { NodeRequest } from "@folio/http-transcoder";
import { connectWireTypes, isConnectContentType } from "./protocol-connect/content-type.js";
import { grpcWireTypes, isGrpcContentType } from "./protocol-grpc/content-type.js";
import { grpcWebWireTypes, isGrpcWebContentType } from "./protocol-grpc-web/content-type.js";
import type { WireType } from "./wire-protocol.js";

/** The RPC protocol of a request; `http` when it is none. */
export type RpcProtocol = "connect" | "grpc" | "grpc-web" | "http";

/**
 * The RPC protocol of a request to the RPC handler, by its content type (the gRPC and gRPC-Web
 * specifications and the Connect protocol's), in any spelling connect-es accepts: `http` when it
 * is none of them.
 */
export function rpcProtocolOf(req: NodeRequest): RpcProtocol {
  const contentType = String(req.headers["content-type"] ?? "").toLowerCase();
  if (isGrpcWebContentType(contentType)) return "grpc-web";
  if (isGrpcContentType(contentType)) return "grpc";
  if (
    isConnectContentType(contentType) ||
    // Connect's GET requests for side-effect-free methods carry no body and no content type.
    (req.method === "GET" && /[?&]connect=v1(&|$)/.test(req.url ?? ""))
  ) {
    return "connect";
  }
  return "http";
}

/**
 * The request content types of the in-process unary path, exactly as clients send them; any other
 * spelling connect-es accepts (a charset parameter, capitals, gRPC-Web's text form) goes to
 * connect-es.
 */
const WIRE_TYPES = new Map<string, WireType>([...grpcWireTypes, ...grpcWebWireTypes, ...connectWireTypes]);

/** The protocol and codec of a unary request's content type on the in-process path; undefined: none. */
export function wireTypeOf(contentType: string | undefined): WireType | undefined {
  return WIRE_TYPES.get(contentType ?? "");
}
