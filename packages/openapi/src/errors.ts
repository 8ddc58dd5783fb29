import { Code } from "@connectrpc/connect";
// Connect's table of codes, names and HTTP statuses, as the transcoder answers with them.
import { codeFromString, codeToHttpStatus, codeToString } from "@folio/http-transcoder/rules";
import type { SchemaObject } from "./openapi-types.js";

/**
 * The Connect error codes by name (https://connectrpc.com/docs/protocol/#error-codes), in the
 * order of their numbers.
 */
const CONNECT_ERROR_CODES: readonly string[] = Object.values(Code)
  .filter((code): code is Code => typeof code === "number")
  .map(codeToString);

/** Whether `code` is a Connect error code name. */
export function isConnectErrorCode(code: string): boolean {
  return codeFromString(code) !== undefined;
}

/**
 * The HTTP status that goes with a Connect error code name: Connect's own table, so that a REST
 * response and a Connect one agree; 500 for a name that is no code.
 */
export function httpStatusOfCode(code: string): number {
  return codeToHttpStatus(codeFromString(code) ?? Code.Unknown);
}

/** An error response an operation documents: its code and when it happens. */
export interface DocumentedError {
  /** A Connect error code name, e.g. `not_found`. */
  readonly code: string;
  /** When the error happens, as a sentence. */
  readonly condition: string;
  /** The HTTP status, when it is not the code's own (e.g. 413 and 415, decided before any handler). */
  readonly httpStatus?: number;
}

/** Name of the error envelope among the component schemas. */
export const ERROR_ENVELOPE_SCHEMA = "ErrorEnvelope";

/** The body of every error response: `{ "error": { code, message, requestId, details } }`. */
export function errorEnvelopeSchema(): SchemaObject {
  return {
    type: "object",
    description: "The body of every error response.",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "requestId", "details"],
        properties: {
          code: {
            type: "string",
            enum: [...CONNECT_ERROR_CODES],
            description:
              "Machine-readable error code: a Connect error code name. The HTTP status follows from it (Connect's code-to-HTTP table).",
          },
          message: { type: "string", description: "Human-readable message, for developers, not end users." },
          requestId: {
            type: "string",
            description:
              "Identifier of the request, also sent as a response header; quote it when reporting a problem.",
          },
          details: {
            type: "array",
            description:
              "Additional data about the error, e.g. a `google.rpc.BadRequest` naming the fields at fault; empty when there is none. Each detail names its protobuf message type in `type`, with the fields of that message in their JSON form beside it.",
            items: {
              type: "object",
              required: ["type"],
              properties: {
                type: {
                  type: "string",
                  description:
                    "Fully-qualified name of the detail's message type, e.g. `google.rpc.BadRequest`.",
                },
              },
              additionalProperties: true,
            },
          },
        },
      },
    },
  };
}

/** Reason phrases of the statuses error responses use (RFC 9110), for descriptions. */
const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  499: "Client Closed Request",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The reason phrase of an HTTP status, or an empty string for one not listed. */
export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? "";
}
