import { Code, ConnectError } from "@connectrpc/connect";
import type { NodeRequest } from "../node-handler.js";

/**
 * What a call's signal aborts with when its client goes away, as connect-node's request signal
 * does: the HTTP/2 reset code as a ConnectError (a client's cancel is `canceled`), or a plain
 * AbortError. Built once: `abort()` without a reason builds a DOMException, stack and all.
 */
export function clientGoneReason(req: NodeRequest): unknown {
  // HTTP/1.1 has no reset codes: a connection reset mid-call (ECONNRESET) is `aborted`, as there.
  if (!("stream" in req)) return req.errored ? ConnectError.from(req.errored, Code.Aborted) : clientGone;
  const rstCode = "stream" in req ? req.stream.rstCode : undefined;
  const code = rstCode === undefined ? undefined : CODE_OF_RESET[rstCode];
  if (code === undefined || rstCode === undefined) return clientGone;
  return new ConnectError(
    `http/2 stream closed with error code ${RESET_NAMES[rstCode]} (0x${rstCode.toString(16)})`,
    code,
  );
}

const clientGone = new DOMException("This operation was aborted", "AbortError");

/** connect-node's mapping of HTTP/2 reset codes (RFC 9113, section 7); NO_ERROR and STREAM_CLOSED have none. */
const CODE_OF_RESET: Readonly<Record<number, Code>> = {
  0x1: Code.Internal,
  0x2: Code.Internal,
  0x3: Code.Internal,
  0x4: Code.Internal,
  0x6: Code.Internal,
  0x7: Code.Unavailable,
  0x8: Code.Canceled,
  0x9: Code.Internal,
  0xa: Code.Internal,
  0xb: Code.ResourceExhausted,
  0xc: Code.PermissionDenied,
  0xd: Code.PermissionDenied,
};

const RESET_NAMES: Readonly<Record<number, string>> = {
  0x1: "PROTOCOL_ERROR",
  0x2: "INTERNAL_ERROR",
  0x3: "FLOW_CONTROL_ERROR",
  0x4: "SETTINGS_TIMEOUT",
  0x6: "FRAME_SIZE_ERROR",
  0x7: "REFUSED_STREAM",
  0x8: "CANCEL",
  0x9: "COMPRESSION_ERROR",
  0xa: "CONNECT_ERROR",
  0xb: "ENHANCE_YOUR_CALM",
  0xc: "INADEQUATE_SECURITY",
  0xd: "HTTP_1_1_REQUIRED",
};
