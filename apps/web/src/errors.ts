import type { DescMethod } from "@bufbuild/protobuf";
import { Code, type ConnectError, FolioError } from "@folio/client";
import { requiredScope } from "@folio/proto";

/** A failed call, told in plain words: what went wrong overall and next to which field. */
export interface ErrorReport {
  /** One sentence for the whole form or list. */
  readonly summary: string;
  /** Sentences for fields of the request, by their JSON name (e.g. `name`, `parentId`). */
  readonly fields: Readonly<Record<string, string>>;
  /** Seconds to wait before trying again (rate limit, request in progress). */
  readonly retryAfterSeconds: number | undefined;
  /** The request id to quote when reporting a server failure. */
  readonly requestId: string | undefined;
  /** The token is missing, refused or lacks a scope: the fix is on the connection page. */
  readonly fixConnection: boolean;
}

/** What {@link describeError} needs to know besides the error. */
export interface ErrorContext {
  /** The method that was called: its required scope names what a 403 lacks. */
  readonly method: DescMethod;
  /** The API's base URL, and the page's own origin, for "could not reach" messages. */
  readonly apiUrl: string;
  readonly pageOrigin: string;
  /** Expiry of the token sent, when known: tells an expired token from another refusal. */
  readonly tokenExpiresAt?: Date | undefined;
  readonly now?: Date;
}

/** Names of request fields as a person reads them. */
export const FIELD_LABELS: Record<string, string> = {
  id: "Folder id",
  name: "Name",
  color: "Colour",
  parentId: "Parent folder",
  requestId: "Request id",
  "Idempotency-Key": "Idempotency key",
  pageSize: "Page size",
  pageToken: "Page token",
  namePrefix: "Name filter",
  city: "City",
  country: "Country",
  postalCode: "Postal code",
};

/** Reasons of google.rpc.ErrorInfo details the server sends (domain folio.v1). */
const FOLDER_NAME_TAKEN = "FOLDER_NAME_TAKEN";
const IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED";
const REQUEST_IN_PROGRESS = "REQUEST_IN_PROGRESS";

/**
 * Explains a failed call from what @folio/client reads of it: its code, details (BadRequest,
 * ErrorInfo) and headers (Retry-After, X-Request-Id).
 */
export function describeError(error: unknown, context: ErrorContext): ErrorReport {
  const err = FolioError.from(error);
  const report = {
    summary: "",
    fields: {} as Record<string, string>,
    retryAfterSeconds: err.retryAfterSeconds,
    requestId: err.requestId,
    fixConnection: false,
  };
  const reason = err.reason;
  const wait = report.retryAfterSeconds;
  const inSeconds = wait === undefined ? "in a moment" : `in ${wait} ${wait === 1 ? "second" : "seconds"}`;

  switch (err.code) {
    case Code.InvalidArgument: {
      for (const violation of err.fieldViolations) {
        const label = FIELD_LABELS[violation.field] ?? violation.field;
        const sentence = `${label} ${violation.description}.`;
        report.fields[violation.field] =
          report.fields[violation.field] === undefined
            ? sentence
            : `${report.fields[violation.field]} ${sentence}`;
      }
      const count = Object.keys(report.fields).length;
      report.summary =
        count === 0
          ? `The request was refused: ${err.rawMessage}.`
          : count === 1
            ? "One field needs a change."
            : `${count} fields need a change.`;
      break;
    }
    case Code.AlreadyExists:
      if (reason === FOLDER_NAME_TAKEN) {
        report.fields.name =
          "A folder with this name already exists in this parent (names are compared ignoring case). Choose another name.";
        report.summary = "The name is taken.";
      } else if (reason === IDEMPOTENCY_KEY_REUSED) {
        report.summary =
          "This request's idempotency key was already used for a different folder. Submit again to send it as a new request.";
      } else {
        report.summary = `It already exists: ${err.rawMessage}.`;
      }
      break;
    case Code.Aborted:
      report.summary =
        reason === REQUEST_IN_PROGRESS
          ? `The same request is still being processed. Try again ${inSeconds}.`
          : `The request was interrupted: try again ${inSeconds}.`;
      break;
    case Code.NotFound:
      if (context.method.input.fields.some((f) => f.localName === "parentId")) {
        report.fields.parentId = "No folder with this id exists in your organisation.";
        report.summary = "The parent folder was not found.";
      } else {
        // The server's own words ("folder not found"): it says the same of another organisation's.
        report.summary = err.rawMessage === "" ? "Not found." : `${sentenceCase(err.rawMessage)}.`;
      }
      break;
    case Code.PermissionDenied: {
      const scope = requiredScope(context.method);
      report.summary = scope
        ? `Your token does not allow this: it lacks the scope “${scope}”. Use a token that has it.`
        : `Your token does not allow this: ${err.rawMessage}.`;
      report.fixConnection = true;
      break;
    }
    case Code.Unauthenticated: {
      const now = context.now ?? new Date();
      const expired = context.tokenExpiresAt !== undefined && context.tokenExpiresAt <= now;
      report.summary = expired
        ? `Your token expired at ${formatTime(context.tokenExpiresAt as Date)}. Paste a new one.`
        : err.rawMessage === "missing bearer token"
          ? "No access token yet. Paste one to connect."
          : `The server did not accept your token (${err.rawMessage}). Paste a new one.`;
      report.fixConnection = true;
      break;
    }
    case Code.ResourceExhausted:
      report.summary = `Too many requests: the rate limit is reached. Try again ${inSeconds}.`;
      break;
    case Code.Internal:
      report.summary = report.requestId
        ? `The server failed to handle the request. If it keeps happening, report request id ${report.requestId}.`
        : "The server failed to handle the request.";
      break;
    case Code.Unavailable:
      report.summary = `The API is unavailable right now (${err.rawMessage}). Try again ${inSeconds}.`;
      break;
    case Code.DeadlineExceeded:
      report.summary = "The API took too long to answer. Try again.";
      break;
    default:
      if (isNetworkFailure(err)) {
        const crossOrigin = new URL(context.apiUrl).origin !== context.pageOrigin;
        report.summary = crossOrigin
          ? `Could not reach the API at ${context.apiUrl}. Check the address, that the server runs, and that it allows this page's origin (${context.pageOrigin}) in CORS_ALLOWED_ORIGINS.`
          : `Could not reach the API at ${context.apiUrl}. Check that the server runs.`;
      } else {
        report.summary = `The request failed (${Code[err.code] ?? err.code}): ${err.rawMessage}.`;
      }
  }
  return report;
}

/** A failed fetch: the browser gives no status (server down, connection refused, CORS refusal). */
export function isNetworkFailure(error: ConnectError): boolean {
  return error.code === Code.Unknown && error.cause instanceof TypeError;
}

/** A call worth repeating by itself: the network or the server may be back a moment later. */
export function isTransient(error: unknown): boolean {
  const err = FolioError.from(error);
  return err.code === Code.Unavailable || isNetworkFailure(err);
}

function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function formatTime(date: Date): string {
  return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}
