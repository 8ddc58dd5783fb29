import {
  headerAcceptEncoding,
  headerEncoding,
  headerTimeout,
  parseTimeout,
} from "@connectrpc/connect/protocol-grpc";
import type { WireHeaders } from "../wire-protocol.js";

/** The request headers a gRPC call reads its codings and deadline from. */
export const grpcWireHeaders: WireHeaders = {
  encoding: headerEncoding.toLowerCase(),
  acceptEncoding: headerAcceptEncoding.toLowerCase(),
  timeout: headerTimeout.toLowerCase(),
  parseTimeout,
};
