import { ConnectError } from "@connectrpc/connect";
// Connect's table of codes and HTTP statuses (https://connectrpc.com/docs/protocol#error-codes),
// so that a REST client sees what a Connect client would.
import { codeToHttpStatus } from "./code-names.js";
import { type RestErrorRule, restErrorRules } from "./rest-error-rules.js";

const httpStatusOverrides = new WeakMap<ConnectError, number>();

/**
 * An error of the transcoder itself (the request never reached the method), with the rule's code
 * and, where HTTP has a status of its own for it, that status.
 *
 * @private
 */
export function restError(rule: RestErrorRule, message: string): ConnectError {
  const error = new ConnectError(message, rule.code);
  if (rule.httpStatus !== codeToHttpStatus(rule.code)) {
    httpStatusOverrides.set(error, rule.httpStatus);
  }
  return error;
}

/**
 * The HTTP status of an error: Connect's mapping of codes to HTTP statuses
 * (https://connectrpc.com/docs/protocol#error-codes), unless a rule gave it its own.
 *
 * @private
 */
export function httpStatusOf(error: ConnectError): number {
  return httpStatusOverrides.get(error) ?? codeToHttpStatus(error.code);
}

/**
 * Any error as a ConnectError; anything else than a ConnectError is an internal error whose
 * message is not shown (it may hold a stack trace or secrets).
 *
 * @private
 */
export function asConnectError(error: unknown): ConnectError {
  return error instanceof ConnectError
    ? error
    : new ConnectError("internal error", restErrorRules.internal.code);
}
