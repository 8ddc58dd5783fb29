import { type DescField, getOption } from "@bufbuild/protobuf";
import { type FieldBehavior, field_behavior } from "@folio/http-transcoder/google/api/field_behavior_pb.js";

/** The `(google.api.field_behavior)` annotations of a field ([AIP-203](https://google.aip.dev/203)). */
export function getFieldBehaviors(field: DescField): ReadonlySet<FieldBehavior> {
  return new Set(getOption(field, field_behavior));
}
