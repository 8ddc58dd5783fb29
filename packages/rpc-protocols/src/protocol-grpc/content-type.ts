import type { WireType } from "../wire-protocol.js";

/** Whether a lower-case content type is gRPC's (and not gRPC-Web's, which starts the same). */
export function isGrpcContentType(contentType: string): boolean {
  return contentType.startsWith("application/grpc") && !contentType.startsWith("application/grpc-web");
}

const proto: WireType = {
  protocol: "grpc",
  binary: true,
  contentType: "application/grpc+proto",
  http2: true,
};

/** The request content types the in-process path serves, as clients send them (HTTP/2 only). */
export const grpcWireTypes: ReadonlyArray<readonly [string, WireType]> = [
  ["application/grpc", proto],
  ["application/grpc+proto", proto],
  [
    "application/grpc+json",
    { protocol: "grpc", binary: false, contentType: "application/grpc+json", http2: true },
  ],
];
