import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@folio/googleapis";

/** The Connect code of an answer: `ok` without an error, else the error's (`unknown` if it has none). */
export function codeOfError(error?: unknown): string {
  if (error === undefined) return "ok";
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code in Code ? codeToString(code as Code) : codeToString(Code.Unknown);
}

/**
 * The code of an answer that carries none, by its HTTP status (google.rpc.Code's mapping, read
 * backwards): the server's own HTTP routes, and the few answers of connect-es given before a call
 * exists (an unsupported content type: 415).
 */
export function codeOfStatus(status: number): string {
  if (status < 400) return "ok";
  return codeToString(CODE_OF_STATUS[status] ?? Code.Unknown);
}

const CODE_OF_STATUS: Readonly<Record<number, Code>> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  405: Code.Unimplemented,
  408: Code.DeadlineExceeded,
  409: Code.Aborted,
  413: Code.ResourceExhausted,
  415: Code.InvalidArgument,
  429: Code.ResourceExhausted,
  500: Code.Internal,
  501: Code.Unimplemented,
  503: Code.Unavailable,
  504: Code.DeadlineExceeded,
};

/**
 * The code of a call's end, from the reason its signal aborted with: connect-es aborts a call's
 * signal with the error it answers, and without one (an `AbortError`) when the call ends well; the
 * client going away aborts it too (`clientGone`: `canceled`). Anything else it answers as
 * `internal`.
 */
export function codeOfCallEnd(reason: unknown, clientGone: boolean): string {
  if (reason instanceof ConnectError) return codeOfError(reason);
  if (clientGone) return "canceled";
  return reason instanceof DOMException && reason.name === "AbortError" ? "ok" : "internal";
}
