import type { ConnectError, ContextValues } from "@connectrpc/connect";
import { codeToString } from "./code-names.js";

/**
 * What the server that mounts a handler (the transcoder's, or one beside it) tells it of one
 * request: the call's context values, and where to report what it answered.
 */
export interface RequestScope {
  /** The context values of the request's call, instead of those of the `contextValues` option. */
  readonly contextValues?: ContextValues;
  /** Where the handler reports what it answered. */
  readonly report?: AnswerReport;
}

/**
 * How whoever answers a request reports it, each fact once, to the server that received it (for
 * its access log and metrics, as Fastify's `onResponse` hook): the method called, then the code
 * of the answer. One type for every protocol: REST (the transcoder) and Connect, gRPC and gRPC-Web
 * (whichever handler answers them) report the same facts the same way.
 */
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
