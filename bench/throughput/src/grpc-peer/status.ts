// Failures as gRPC statuses, written as Folio's gRPC responses carry them (connect-es's gRPC
// protocol): the code, the message as `grpc-message`, the google.rpc details in
// `grpc-status-details-bin`, and the error's headers (WWW-Authenticate, Retry-After) and the
// request id as trailers.

import { create, type DescMessage, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { BadRequestSchema, ErrorInfoSchema, StatusSchema } from "@folio/googleapis";
import { Metadata, type ServerErrorResponse, status } from "@grpc/grpc-js";
import { ApiError, type ErrorCode, type ErrorDetail } from "../baseline/api-error.ts";

/** The gRPC status of each code the baseline answers with (the codes' own numbers). */
const GRPC_STATUS: Readonly<Record<ErrorCode, status>> = {
  invalid_argument: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  unimplemented: status.UNIMPLEMENTED,
  internal: status.INTERNAL,
  unavailable: status.UNAVAILABLE,
};

/** The detail messages the baseline writes, by the type name its errors give them. */
const DETAIL_SCHEMA: Readonly<Record<string, DescMessage>> = {
  "google.rpc.BadRequest": BadRequestSchema,
  "google.rpc.ErrorInfo": ErrorInfoSchema,
};

/** An ApiError as the error a grpc-js unary handler answers with. */
export function grpcError(error: ApiError, requestId: string): ServerErrorResponse {
  const metadata = new Metadata();
  metadata.set("x-request-id", requestId);
  for (const [name, value] of Object.entries(error.headers)) {
    // Hop-by-hop HTTP/1.1 fields have no place in gRPC metadata.
    if (name !== "connection") metadata.set(name, value);
  }
  const code = GRPC_STATUS[error.code];
  if (error.details.length > 0) {
    const details = error.details.map(anyDetail);
    const statusMessage = create(StatusSchema, { code, message: error.message, details });
    metadata.set("grpc-status-details-bin", Buffer.from(toBinary(StatusSchema, statusMessage)));
  }
  return Object.assign(new Error(error.message), { code, details: error.message, metadata });
}

/** A JSON-shaped detail of the baseline's errors as the google.protobuf.Any Folio sends. */
function anyDetail(detail: ErrorDetail) {
  const { type, ...fields } = detail;
  const schema = DETAIL_SCHEMA[type];
  if (schema === undefined) throw new Error(`no schema for the error detail ${type}`);
  return anyPack(schema, create(schema, fields));
}

/** A request message that could not be parsed: `invalid_argument`, as Folio answers it. */
export function undecodable(message: string): ApiError {
  return new ApiError("invalid_argument", message);
}
