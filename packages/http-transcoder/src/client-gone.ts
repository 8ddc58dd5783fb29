import { Code, ConnectError } from "@connectrpc/connect";
import type { NodeRequest } from "./node-types.js";

/**
 * What a call's signal aborts with when its client goes away, as connect-node's request signal
 * does: the HTTP/2 reset code as a ConnectError (a client's cancel is `canceled`), or a plain
 * AbortError. Built once: `abort()` without a reason builds a DOMException, stack and all.
 */
export function clientGoneReason(req: NodeRequest): unknown {
  // HTTP/1.1 has no reset codes: a connection reset mid-call (ECONNRESET) is `aborted`, as there.
  if (!("stream" in req)) return req.errored ? ConnectError.from(req.errored, Code.Aborted) : clientGone;
  const rstCode = req.stream.rstCode;
  const code = rstCode === undefined ? undefined : CODE_OF_RESET[rstCode];
  if (rstCode === undefined || code === undefined) return clientGone;
  return new ConnectError(
    `http/2 stream closed with error code ${RESET_NAMES[rstCode]} (0x${rstCode.toString(16)})`,
    code,
  );
}

const clientGone = new DOMException("This operation was aborted", "AbortError");

/**
 * connect-node's mapping of HTTP/2 reset codes (RFC 9113, section 7; its `connectErrorFromH2ResetCode`,
 * which the package does not export); NO_ERROR and STREAM_CLOSED have none.
 */
const CODE_OF_RESET: Readonly<Record<number, Code>> = {
  1: Code.Internal,
  2: Code.Internal,
  3: Code.Internal,
  4: Code.Internal,
  6: Code.Internal,
  7: Code.Unavailable,
  8: Code.Canceled,
  9: Code.Internal,
  10: Code.Internal,
  11: Code.ResourceExhausted,
  12: Code.PermissionDenied,
  13: Code.PermissionDenied,
};

const RESET_NAMES: Readonly<Record<number, string>> = {
  1: "PROTOCOL_ERROR",
  2: "INTERNAL_ERROR",
  3: "FLOW_CONTROL_ERROR",
  4: "SETTINGS_TIMEOUT",
  6: "FRAME_SIZE_ERROR",
  7: "REFUSED_STREAM",
  8: "CANCEL",
  9: "COMPRESSION_ERROR",
  10: "CONNECT_ERROR",
  11: "ENHANCE_YOUR_CALM",
  12: "INADEQUATE_SECURITY",
  13: "HTTP_1_1_REQUIRED",
};
