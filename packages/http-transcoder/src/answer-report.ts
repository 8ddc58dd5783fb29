import type { ConnectError, ContextValues } from "@connectrpc/connect";
import { codeToString } from "@folio/googleapis";

/**
 * What the server that mounts a transcoder tells it of one request, as its handler's third
 * argument: say, a server that gives each request an id and logs its outcome.
 */
export interface TranscodedRequest {
  /** The context values of the request's call, instead of those of the `contextValues` option. */
  readonly contextValues?: ContextValues;
  /** Where the transcoder reports what it answered. */
  readonly report?: AnswerReport;
}

/** What a transcoder reports of a request it answers, each once (say, for an access log and metrics). */
export interface AnswerReport {
  /** The method the request calls, as the call begins: `acme.v1.Library/GetBook`. */
  called(method: string): void;
  /** The Connect code of the answer (`ok`, `not_found`...), as it is written. */
  answered(code: string): void;
}

/** Reports the code of an error the transcoder answers with. @private */
export function reportError(report: AnswerReport | undefined, error: ConnectError): void {
  report?.answered(codeToString(error.code));
}
