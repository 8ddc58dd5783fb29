import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@folio/http-transcoder";

/** The Connect code of an answer: `ok` without an error, else the error's (`unknown` if it has none). */
export function codeOfError(error?: unknown): string {
  if (error === undefined) return "ok";
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code in Code ? codeToString(code as Code) : codeToString(Code.Unknown);
}

/**
 * HTTP status to code, on the server's side: the code the server reports (access log, metrics)
 * for an answer of its own that carries none, by its status. google.rpc.Code's documented
 * statuses read backwards, so 400 is `invalid_argument` and 404 `not_found`, as the server means
 * them. Used for the server's own HTTP routes (apps/server's request record) and the few answers
 * of connect-es given before a call exists (rpc-handler.ts: an unsupported content type, 415).
 * Not what a client reads from such a status: that is @folio/googleapis' clientCodeFromHttpStatus.
 */
export function reportedCodeFromHttpStatus(status: number): string {
  if (status < 400) return "ok";
  return codeToString(REPORTED_CODE_OF_STATUS[status] ?? Code.Unknown);
}

const REPORTED_CODE_OF_STATUS: Readonly<Record<number, Code>> = {
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
