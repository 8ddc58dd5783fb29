import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  clientCodeFromHttpStatus,
  codeFromString,
  codeToString,
  ErrorInfoSchema,
} from "@folio/googleapis";

const FOLIO_ERROR = Symbol.for("folio.FolioError");

/** A field of the request at fault, from the `google.rpc.BadRequest` detail. */
export interface FieldViolation {
  /** The field's JSON name, e.g. `parentId`, or a header's name, e.g. `Idempotency-Key`. */
  readonly field: string;
  readonly description: string;
}

/**
 * A refusal or failure of a Folio call, the same over Connect, gRPC-Web, gRPC and REST. It is a
 * ConnectError (so connect-es and connect-query keep it as it is) that also reads what Folio sends
 * with it: the request id, the `google.rpc.ErrorInfo` reason and metadata, the
 * `google.rpc.BadRequest` field violations and the Retry-After delay.
 */
export class FolioError extends ConnectError {
  // ConnectError recognises its errors by this name (its instanceof accepts copies of the class
  // from other bundles); a FolioError must stay one, so that connect-es passes it on unchanged.
  override name = "ConnectError";
  /** Marks FolioErrors, for the same cross-copy `instanceof` (see Symbol.hasInstance below). */
  readonly [FOLIO_ERROR] = true;
  /** The code's name as the REST envelope and the docs write it, e.g. `already_exists`. */
  readonly codeName: string;
  /** The request's id (X-Request-Id): quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The ErrorInfo reason, e.g. `FOLDER_NAME_TAKEN`, `IDEMPOTENCY_KEY_REUSED`, `REQUEST_IN_PROGRESS`. */
  readonly reason: string | undefined;
  /** The ErrorInfo metadata, e.g. `{ folderId }` of the folder whose name is taken. */
  readonly reasonMetadata: Readonly<Record<string, string>>;
  /** Each field of the request at fault, from the BadRequest detail. */
  readonly fieldViolations: readonly FieldViolation[];
  /** Seconds the server asked to wait before a retry (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(error: ConnectError) {
    super(error.rawMessage, error.code, error.metadata, undefined, error.cause ?? error);
    this.details = error.details;
    this.codeName = codeToString(error.code);
    const info = error.findDetails(ErrorInfoSchema)[0];
    this.reason = info?.reason;
    this.reasonMetadata = { ...info?.metadata };
    this.fieldViolations = error
      .findDetails(BadRequestSchema)
      .flatMap((detail) => detail.fieldViolations)
      .map(({ field, description }) => ({ field, description }));
    this.requestId = error.metadata.get("x-request-id") ?? undefined;
    this.retryAfterSeconds = parseRetryAfter(error.metadata.get("retry-after"));
  }

  /** Whether `value` is a FolioError, of this copy of the package or another. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [FOLIO_ERROR]?: unknown })[FOLIO_ERROR] === true
    );
  }

  /** Any error as a FolioError (a network failure is `unavailable`, an abort `canceled`). */
  static override from(reason: unknown, code = Code.Unknown): FolioError {
    if (reason instanceof FolioError) return reason;
    return new FolioError(ConnectError.from(reason, code));
  }
}

/** The `{ error: { code, message, requestId, details } }` envelope of a REST error, as a FolioError. */
export function folioErrorFromRest(status: number, headers: Headers, body: unknown): FolioError {
  const envelope = isObject(body) && isObject(body.error) ? body.error : undefined;
  const code =
    (typeof envelope?.code === "string" ? codeFromString(envelope.code) : undefined) ??
    clientCodeFromHttpStatus(status);
  const message = typeof envelope?.message === "string" ? envelope.message : `HTTP ${status}`;
  const details = (Array.isArray(envelope?.details) ? envelope.details : []).flatMap((detail: unknown) => {
    if (!isObject(detail)) return [];
    const { type, ...fields } = detail;
    const schema =
      type === "google.rpc.ErrorInfo"
        ? ErrorInfoSchema
        : type === "google.rpc.BadRequest"
          ? BadRequestSchema
          : undefined;
    if (schema === undefined) return [];
    try {
      return [{ desc: schema, value: fromJson(schema, fields as JsonObject, { ignoreUnknownFields: true }) }];
    } catch {
      return [];
    }
  });
  const metadata = new Headers(headers);
  if (typeof envelope?.requestId === "string" && !metadata.has("x-request-id")) {
    metadata.set("x-request-id", envelope.requestId);
  }
  return new FolioError(new ConnectError(message, code, metadata, details));
}

/** Retry-After as seconds (RFC 9110: delay-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
