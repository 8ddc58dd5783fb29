import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import type { HttpRoute } from "./http-route.js";
import { isRequiredField } from "./required-fields.js";
import { hasUrlForm } from "./url-form.js";

/**
 * A query parameter a route accepts: a field the path and the body leave unbound (http.proto: "Any
 * fields in the request message which are not bound by the path template automatically become
 * HTTP query parameters if there is no HTTP request body"), that a URL can hold.
 */
export interface QueryParameter {
  /** The field path from the request message, nested messages first. */
  readonly fields: readonly DescField[];
  /** The name in JSON names (`filter.inPrint`); the transcoder takes proto names too. */
  readonly name: string;
  /** The name in proto names (`filter.in_print`). */
  readonly protoName: string;
  /** Whether the parameter may be repeated (`?tag=a&tag=b`): the field is a list. */
  readonly repeated: boolean;
  /** Whether a request must send it: every field of the path is required ({@link isRequiredField}). */
  readonly required: boolean;
}

/**
 * Every query parameter of a route, in the order of the fields: scalars, enums, well-known types
 * with a string form (`Timestamp`, `Duration`, `FieldMask`, wrappers), lists of those, and the
 * fields of nested messages by their dotted path. Maps and other messages have no query form.
 * None when the body is `"*"`.
 */
export function queryParameters(route: HttpRoute): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  const input = route.method.input;
  const visit = (message: DescMessage, prefix: readonly DescField[]) => {
    for (const field of message.fields) {
      const fields = [...prefix, field];
      const nested = field.fieldKind === "message" ? field.message : undefined;
      if (nested !== undefined && !hasUrlForm(field)) {
        // Into a nested message, unless it is bound as a whole, opaque, or already on the path.
        if (isBoundWhole(route, fields) || hasCustomJsonRepresentation(nested)) continue;
        if (nested === input || prefix.some((f) => f.message === nested)) continue;
        visit(nested, fields);
      } else if (queryRefusal(route, fields) === undefined) {
        parameters.push(queryParameter(fields));
      }
    }
  };
  visit(input, []);
  return parameters;
}

/**
 * Why the query string cannot set a field path on a route, or undefined when it can: the rule
 * the transcoder enforces and {@link queryParameters} lists.
 *
 * @private
 */
export function queryRefusal(route: HttpRoute, fields: readonly DescField[]): string | undefined {
  // http.proto: the query string maps fields only when the body is not "*"; a query parameter for
  // a field the path or the body binds would be a second, conflicting source.
  if (route.body === "*") return 'not allowed: the request body holds every field (body: "*")';
  if (route.bodyField !== undefined && fields[0] === route.bodyField) {
    return "not allowed: the field is bound by the request body";
  }
  if (route.pathVariables.some((variable) => overlaps(variable.fields, fields))) {
    return "not allowed: the field is bound by the path";
  }
  const leaf = fields[fields.length - 1] as DescField;
  if (!hasUrlForm(leaf)) {
    return leaf.fieldKind === "map"
      ? "a map field cannot be set from the query string"
      : "a message field cannot be set from the query string; set its fields with dots";
  }
  return undefined;
}

/** The query parameter of a field path. @private */
export function queryParameter(fields: readonly DescField[]): QueryParameter {
  return {
    fields,
    name: fields.map((f) => f.jsonName).join("."),
    protoName: fields.map((f) => f.name).join("."),
    repeated: fields[fields.length - 1]?.fieldKind === "list",
    required: fields.every(isRequiredField),
  };
}

/** Whether the body or a path variable binds a field path as a whole (it or a prefix of it). */
function isBoundWhole(route: HttpRoute, fields: readonly DescField[]): boolean {
  if (route.body === "*" || (route.bodyField !== undefined && fields[0] === route.bodyField)) return true;
  return route.pathVariables.some(
    (variable) => variable.fields.length <= fields.length && overlaps(variable.fields, fields),
  );
}

/** Whether one field path is a prefix of the other. */
function overlaps(a: readonly DescField[], b: readonly DescField[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}
