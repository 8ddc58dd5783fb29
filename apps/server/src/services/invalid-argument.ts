import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequest_FieldViolationSchema, BadRequestSchema } from "@folio/proto";

/** A request field at fault, named as REST clients write it (JSON name). */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** `invalid_argument` with a google.rpc.BadRequest detail naming every field at fault. */
export function invalidArgument(violations: readonly FieldViolation[]): ConnectError {
  return new ConnectError(
    violations.map((v) => `${v.field} ${v.description}`).join("; "),
    Code.InvalidArgument,
    undefined,
    [
      {
        desc: BadRequestSchema,
        value: { fieldViolations: violations.map((v) => create(BadRequest_FieldViolationSchema, v)) },
      },
    ],
  );
}
