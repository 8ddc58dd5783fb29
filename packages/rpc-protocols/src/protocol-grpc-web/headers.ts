import { grpcWireHeaders } from "../protocol-grpc/headers.js";
import type { WireHeaders } from "../wire-protocol.js";

/** The request headers a gRPC-Web call reads its codings and deadline from: gRPC's. */
export const grpcWebWireHeaders: WireHeaders = grpcWireHeaders;
