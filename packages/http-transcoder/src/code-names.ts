import type { Code } from "@connectrpc/connect";

// The codes' names and HTTP statuses as the Connect protocol gives them
// (https://connectrpc.com/docs/protocol#error-codes, #http-to-error-code): the names REST's error
// envelope and the docs write, and the statuses REST answers with, so that a REST client sees what
// a Connect client would. Written out because connect-es keeps its table in an internal module
// (@connectrpc/connect/protocol-connect), which the transcoder does not import;
// test/code-names.test.ts pins this one to it. Codes are written as their numbers (gRPC's, which
// Connect's are), typed with Connect's enum through a type-only import, so that the rules, which
// export these, load nothing of Connect.

const NAMES: readonly (readonly [Code, string, number])[] = [
  [1 as Code.Canceled, "canceled", 499],
  [2 as Code.Unknown, "unknown", 500],
  [3 as Code.InvalidArgument, "invalid_argument", 400],
  [4 as Code.DeadlineExceeded, "deadline_exceeded", 504],
  [5 as Code.NotFound, "not_found", 404],
  [6 as Code.AlreadyExists, "already_exists", 409],
  [7 as Code.PermissionDenied, "permission_denied", 403],
  [8 as Code.ResourceExhausted, "resource_exhausted", 429],
  [9 as Code.FailedPrecondition, "failed_precondition", 400],
  [10 as Code.Aborted, "aborted", 409],
  [11 as Code.OutOfRange, "out_of_range", 400],
  [12 as Code.Unimplemented, "unimplemented", 501],
  [13 as Code.Internal, "internal", 500],
  [14 as Code.Unavailable, "unavailable", 503],
  [15 as Code.DataLoss, "data_loss", 500],
  [16 as Code.Unauthenticated, "unauthenticated", 401],
];

const nameOf = new Map(NAMES.map(([code, name]) => [code, name]));
const codeOf = new Map(NAMES.map(([code, name]) => [name, code]));
const statusOf = new Map(NAMES.map(([code, , status]) => [code, status]));

/** A code's name in snake case, e.g. `permission_denied`; a number not a code as its digits. */
export function codeToString(code: Code): string {
  return nameOf.get(code) ?? String(code);
}

/** The code of a snake-case name, e.g. `permission_denied`; undefined for none. */
export function codeFromString(name: string): Code | undefined {
  return codeOf.get(name);
}

/** The HTTP status a code is answered with (Connect's, and REST's); 500 for a number not a code. */
export function codeToHttpStatus(code: Code): number {
  return statusOf.get(code) ?? 500;
}
