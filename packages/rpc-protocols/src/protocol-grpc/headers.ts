import {
  grpcHeaderAcceptEncoding,
  grpcHeaderEncoding,
  grpcHeaderTimeout,
  parseGrpcTimeout,
} from "../connect-internals.js";
import type { WireHeaders } from "../wire-protocol.js";

/** The request headers a gRPC call reads its codings and deadline from. */
export const grpcWireHeaders: WireHeaders = {
  encoding: grpcHeaderEncoding.toLowerCase(),
  acceptEncoding: grpcHeaderAcceptEncoding.toLowerCase(),
  timeout: grpcHeaderTimeout.toLowerCase(),
  parseTimeout: parseGrpcTimeout,
};
