import {
  headerTimeout,
  headerUnaryAcceptEncoding,
  headerUnaryEncoding,
  parseTimeout,
} from "@connectrpc/connect/protocol-connect";
import type { WireHeaders } from "../wire-protocol.js";

/** The request headers a unary Connect call reads its codings and deadline from. */
export const connectWireHeaders: WireHeaders = {
  encoding: headerUnaryEncoding.toLowerCase(),
  acceptEncoding: headerUnaryAcceptEncoding.toLowerCase(),
  timeout: headerTimeout.toLowerCase(),
  parseTimeout,
};
