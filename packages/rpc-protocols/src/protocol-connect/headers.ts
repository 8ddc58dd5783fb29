import {
  connectHeaderTimeout,
  headerUnaryAcceptEncoding,
  headerUnaryEncoding,
  parseConnectTimeout,
} from "../connect-internals.js";
import type { WireHeaders } from "../wire-protocol.js";

/** The request headers a unary Connect call reads its codings and deadline from. */
export const connectWireHeaders: WireHeaders = {
  encoding: headerUnaryEncoding.toLowerCase(),
  acceptEncoding: headerUnaryAcceptEncoding.toLowerCase(),
  timeout: connectHeaderTimeout.toLowerCase(),
  parseTimeout: parseConnectTimeout,
};
