import { type DescField, getOption } from "@bufbuild/protobuf";
import { FieldBehavior, field_behavior } from "./gen/google/api/field_behavior_pb.js";
import { rawBodyTarget } from "./http-body.js";
import type { HttpRoute } from "./http-route.js";

/**
 * Whether a request must set a field: it is annotated `(google.api.field_behavior) = REQUIRED`
 * ([AIP-203](https://google.aip.dev/203)) and is not `OUTPUT_ONLY` as well. The transcoder leaves
 * the check to the method; API documentation says it.
 */
export function isRequiredField(field: DescField): boolean {
  const behaviors = getOption(field, field_behavior);
  return behaviors.includes(FieldBehavior.REQUIRED) && !behaviors.includes(FieldBehavior.OUTPUT_ONLY);
}

/**
 * Whether a route's request needs a body: a raw `google.api.HttpBody` body always, a JSON one when
 * it holds a required field (the transcoder reads an empty body as an empty message, and the
 * path's fields are not the body's).
 */
export function isRequestBodyRequired(route: HttpRoute): boolean {
  if (route.body === undefined) return false;
  if (rawBodyTarget(route) !== undefined) return true;
  if (route.bodyField !== undefined) return isRequiredField(route.bodyField);
  const boundByPath = new Set(
    route.pathVariables.filter((v) => v.fields.length === 1).map((v) => v.fields[0] as DescField),
  );
  return route.method.input.fields.some((field) => !boundByPath.has(field) && isRequiredField(field));
}
