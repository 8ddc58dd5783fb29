import {
  create,
  createRegistry,
  fromBinary,
  type JsonObject,
  type JsonValue,
  type JsonWriteOptions,
  type Registry,
  toJson,
} from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import type { ConnectError } from "@connectrpc/connect";
// Connect's names of codes (https://connectrpc.com/docs/protocol#error-codes), so that a REST
// client sees what a Connect client would.
import { codeToString } from "./code-names.js";
import { file_google_rpc_error_details } from "./gen/google/rpc/error_details_pb.js";

/**
 * The body of every error response of a transcoded route:
 *
 * ```json
 * {
 *   "error": {
 *     "code": "invalid_argument",
 *     "message": "unknown query parameter \"orgId\"",
 *     "requestId": "0d9c6c1e-...",
 *     "details": [
 *       {
 *         "type": "google.rpc.BadRequest",
 *         "fieldViolations": [{ "field": "orgId", "description": "unknown query parameter" }]
 *       }
 *     ]
 *   }
 * }
 * ```
 */
export interface HttpErrorEnvelope {
  readonly error: HttpError;
}

/** The error of an {@link HttpErrorEnvelope}. */
export interface HttpError {
  /**
   * The Connect code, in its string form (https://connectrpc.com/docs/protocol#error-codes):
   * `invalid_argument`, `not_found`, `unauthenticated`, ...
   */
  readonly code: string;
  /** A message for the developer, never a stack trace. */
  readonly message: string;
  /** The request's id, as in the `X-Request-Id` response header. */
  readonly requestId: string;
  /** Structured details; empty when there are none. */
  readonly details: readonly HttpErrorDetail[];
}

/**
 * A detail of an {@link HttpError}: the fully-qualified name of a protobuf message in `type`, and
 * the fields of that message in their JSON form beside it, as in
 * `{ "type": "google.rpc.BadRequest", "fieldViolations": [...] }`. A detail whose type the
 * transcoder cannot decode is `{ "type": ..., "value": "<base64 of the binary message>" }`, one
 * whose JSON form is not an object (a wrapper, say) is `{ "type": ..., "value": <JSON> }`.
 */
export interface HttpErrorDetail {
  /** The fully-qualified name of the detail's message: `google.rpc.BadRequest`. */
  readonly type: string;
  readonly [field: string]: JsonValue;
}

const errorDetailsRegistry = createRegistry(file_google_rpc_error_details);

/**
 * Renders an error as an {@link HttpErrorEnvelope}. Details are decoded with the registry of the
 * options (falling back to the google.rpc error details), or taken from the `debug` JSON a Connect
 * handler sends with them.
 *
 * @private
 */
export function errorEnvelope(
  error: ConnectError,
  requestId: string,
  jsonOptions: Partial<JsonWriteOptions>,
): HttpErrorEnvelope {
  return {
    error: {
      code: codeToString(error.code),
      message: error.rawMessage,
      requestId,
      details: error.details.map((detail) => renderDetail(detail, jsonOptions)),
    },
  };
}

function renderDetail(
  detail: ConnectError["details"][number],
  jsonOptions: Partial<JsonWriteOptions>,
): HttpErrorDetail {
  if ("desc" in detail) {
    return withType(
      detail.desc.typeName,
      toJson(detail.desc, create(detail.desc, detail.value), jsonOptions),
    );
  }
  const desc = findMessage(jsonOptions.registry, detail.type);
  if (desc !== undefined) {
    try {
      return withType(detail.type, toJson(desc, fromBinary(desc, detail.value), jsonOptions));
    } catch {
      // Not what the type says it is: sent as bytes below.
    }
  }
  if (detail.debug !== undefined && detail.debug !== null) {
    return withType(detail.type, detail.debug);
  }
  return { type: detail.type, value: base64Encode(detail.value) };
}

function findMessage(registry: Registry | undefined, typeName: string) {
  return registry?.getMessage(typeName) ?? errorDetailsRegistry.getMessage(typeName);
}

function withType(type: string, json: JsonValue): HttpErrorDetail {
  if (typeof json === "object" && json !== null && !Array.isArray(json)) {
    // The type name first, as readers look for it; a field of the detail named "type" does not
    // replace it.
    const { type: _field, ...fields } = json as JsonObject;
    return { type, ...fields };
  }
  return { type, value: json };
}
