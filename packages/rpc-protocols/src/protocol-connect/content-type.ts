import { contentTypeUnaryJson, contentTypeUnaryProto } from "../connect-internals.js";
import type { WireType } from "../wire-protocol.js";

/** Whether a lower-case content type is the Connect protocol's (unary JSON or proto, or a stream's). */
export function isConnectContentType(contentType: string): boolean {
  return (
    contentType.startsWith("application/connect+") ||
    contentType.startsWith("application/json") ||
    contentType.startsWith("application/proto")
  );
}

/** The unary request content types the in-process path serves, as clients send them. */
export const connectWireTypes: ReadonlyArray<readonly [string, WireType]> = [
  [
    "application/proto",
    { protocol: "connect", binary: true, contentType: contentTypeUnaryProto, http2: false },
  ],
  [
    "application/json",
    { protocol: "connect", binary: false, contentType: contentTypeUnaryJson, http2: false },
  ],
];
