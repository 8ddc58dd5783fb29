/**
 * Errors in Folio's REST envelope: `{"error":{"code","message","requestId","details"}}`, with the
 * HTTP status Connect gives each code, as Folio's transcoder sends them.
 */

/** The Connect codes the baseline answers with, and their HTTP statuses (Connect's mapping). */
const HTTP_STATUS = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  resource_exhausted: 429,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof HTTP_STATUS;

/** A google.rpc detail as Folio's envelope writes it: the type name first, then its JSON fields. */
export type ErrorDetail = { readonly type: string } & Readonly<Record<string, unknown>>;

/** A violation of a google.rpc.BadRequest detail. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** A refusal the client sees: its code, message, details, and the headers that go with it. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[];
  readonly headers: Readonly<Record<string, string>>;
  /** The HTTP status: the code's, or one of its own (413, 415) given here. */
  readonly status: number;

  constructor(
    code: ErrorCode,
    message: string,
    details: readonly ErrorDetail[] = [],
    headers: Readonly<Record<string, string>> = {},
    httpStatus?: number,
  ) {
    super(message);
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.status = httpStatus ?? HTTP_STATUS[code];
  }
}

/** `invalid_argument` with a google.rpc.BadRequest naming each field, as Folio's `invalidArgument`. */
export function invalidArgument(violations: readonly FieldViolation[], message?: string): ApiError {
  const describe = (v: FieldViolation) => (v.field === "" ? v.description : `${v.field}: ${v.description}`);
  return new ApiError("invalid_argument", message ?? violations.map(describe).join("; "), [
    {
      type: "google.rpc.BadRequest",
      // protobuf JSON leaves out default values: a violation without a field has no "field" key.
      fieldViolations: violations.map((v) =>
        v.field === "" ? { description: v.description } : { field: v.field, description: v.description },
      ),
    },
  ]);
}

/** An error with a google.rpc.ErrorInfo detail (domain `folio.v1`), as Folio's `errorWithReason`. */
export function errorWithReason(
  code: ErrorCode,
  message: string,
  reason: string,
  metadata: Record<string, string>,
): ApiError {
  return new ApiError(code, message, [
    { type: "google.rpc.ErrorInfo", reason, domain: "folio.v1", metadata },
  ]);
}

/** The body of an error response. */
export function errorBody(error: ApiError, requestId: string): string {
  return JSON.stringify({
    error: { code: error.code, message: error.message, requestId, details: error.details },
  });
}
