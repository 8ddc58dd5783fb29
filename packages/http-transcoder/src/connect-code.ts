import { Code } from "@connectrpc/connect";

/**
 * The Connect codes with their string form and the HTTP status of a unary error response, as the
 * Connect protocol specifies them (https://connectrpc.com/docs/protocol#error-codes). A REST
 * client sees the same status a Connect client would.
 *
 * @private
 */
const codes: Readonly<Record<Code, readonly [name: string, httpStatus: number]>> = {
  [Code.Canceled]: ["canceled", 499],
  [Code.Unknown]: ["unknown", 500],
  [Code.InvalidArgument]: ["invalid_argument", 400],
  [Code.DeadlineExceeded]: ["deadline_exceeded", 504],
  [Code.NotFound]: ["not_found", 404],
  [Code.AlreadyExists]: ["already_exists", 409],
  [Code.PermissionDenied]: ["permission_denied", 403],
  [Code.ResourceExhausted]: ["resource_exhausted", 429],
  [Code.FailedPrecondition]: ["failed_precondition", 400],
  [Code.Aborted]: ["aborted", 409],
  [Code.OutOfRange]: ["out_of_range", 400],
  [Code.Unimplemented]: ["unimplemented", 501],
  [Code.Internal]: ["internal", 500],
  [Code.Unavailable]: ["unavailable", 503],
  [Code.DataLoss]: ["data_loss", 500],
  [Code.Unauthenticated]: ["unauthenticated", 401],
};

const byName = new Map(Object.entries(codes).map(([code, [name]]) => [name, Number(code) as Code]));

/**
 * The string form of a code: `invalid_argument`.
 *
 * @private
 */
export function codeToName(code: Code): string {
  return codes[code]?.[0] ?? "unknown";
}

/**
 * The code of a string form, `undefined` for none.
 *
 * @private
 */
export function codeFromName(name: string): Code | undefined {
  return byName.get(name);
}

/**
 * The HTTP status of an error with the code.
 *
 * @private
 */
export function codeToHttpStatus(code: Code): number {
  return codes[code]?.[1] ?? 500;
}
