import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequest_FieldViolationSchema, BadRequestSchema } from "./gen/google/rpc/error_details_pb.js";

/**
 * A request field at fault, as a `google.rpc.BadRequest.FieldViolation`: `field` names it as the
 * client wrote it (a JSON path such as `book.title`, or a query parameter), `description` says
 * what is wrong. `reason` and `localizedMessage` may be set too.
 */
export type FieldViolation = MessageInitShape<typeof BadRequest_FieldViolationSchema> & {
  readonly field: string;
  readonly description: string;
};

/**
 * An `invalid_argument` ConnectError with a `google.rpc.BadRequest` detail listing `violations`.
 * (@folio/http-transcoder has the same builder for the errors it answers itself: it is published
 * without Folio's packages.)
 * The message defaults to the violations one after the other (`name: must not be empty; ...`);
 * the detail is what clients read field by field.
 */
export function invalidArgument(violations: readonly FieldViolation[], message?: string): ConnectError {
  return new ConnectError(message ?? violations.map(describe).join("; "), Code.InvalidArgument, undefined, [
    {
      desc: BadRequestSchema,
      value: { fieldViolations: violations.map((v) => create(BadRequest_FieldViolationSchema, v)) },
    },
  ]);
}

function describe(violation: FieldViolation): string {
  return violation.field === "" ? violation.description : `${violation.field}: ${violation.description}`;
}
