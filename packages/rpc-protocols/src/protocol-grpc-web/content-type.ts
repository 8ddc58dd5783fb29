import type { WireType } from "../wire-protocol.js";

/** Whether a lower-case content type is gRPC-Web's (binary or text). */
export function isGrpcWebContentType(contentType: string): boolean {
  return contentType.startsWith("application/grpc-web");
}

const proto: WireType = {
  protocol: "grpcweb",
  binary: true,
  contentType: "application/grpc-web+proto",
  http2: false,
};

/** The request content types the in-process path serves, as clients send them. */
export const grpcWebWireTypes: ReadonlyArray<readonly [string, WireType]> = [
  ["application/grpc-web", proto],
  ["application/grpc-web+proto", proto],
];
