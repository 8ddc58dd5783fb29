import { Code } from "@connectrpc/connect";

// The codes' names and HTTP statuses as the Connect protocol gives them
// (https://connectrpc.com/docs/protocol#error-codes, #http-to-error-code): the names REST's error
// envelope and the docs write, and the statuses REST and Connect answer with. connect-es keeps its
// own copy in an internal module (its protocol-connect). The server side reads the table of
// @folio/http-transcoder, which is published for any connect-es project and so carries its own;
// this one is for the packages installed with the client (and its reading of a status without a
// code), which must not pull in the transcoder. @folio/rpc-protocols'
// test/connect-internals.test.ts pins it to connect-es's, as the transcoder's test pins that one.

const NAMES: readonly (readonly [Code, string, number])[] = [
  [Code.Canceled, "canceled", 499],
  [Code.Unknown, "unknown", 500],
  [Code.InvalidArgument, "invalid_argument", 400],
  [Code.DeadlineExceeded, "deadline_exceeded", 504],
  [Code.NotFound, "not_found", 404],
  [Code.AlreadyExists, "already_exists", 409],
  [Code.PermissionDenied, "permission_denied", 403],
  [Code.ResourceExhausted, "resource_exhausted", 429],
  [Code.FailedPrecondition, "failed_precondition", 400],
  [Code.Aborted, "aborted", 409],
  [Code.OutOfRange, "out_of_range", 400],
  [Code.Unimplemented, "unimplemented", 501],
  [Code.Internal, "internal", 500],
  [Code.Unavailable, "unavailable", 503],
  [Code.DataLoss, "data_loss", 500],
  [Code.Unauthenticated, "unauthenticated", 401],
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

/**
 * HTTP status to code, on the client's side: the code a client reads from a response that carries
 * only a status, such as a proxy's error page (the Connect protocol's "HTTP to Error Code", which
 * connect-es's clients use). It reads 400 as `internal` and 404 as `unimplemented`: a response
 * without a code was not the server's answer to the call. Used by @folio/client for a REST error
 * without the envelope. The server's own reading of its uncoded answers is @folio/rpc-protocols'
 * reportedCodeFromHttpStatus.
 */
export function clientCodeFromHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}
