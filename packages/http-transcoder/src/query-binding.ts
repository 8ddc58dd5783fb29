import type { DescField } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { fieldByName } from "./field-names.js";
import { type FieldValueParser, fieldValueParser } from "./field-value.js";
import type { HttpRoute } from "./http-route.js";
import { type QueryParameter, queryParameter, queryRefusal } from "./query-parameters.js";

// The names a request's query string sends, resolved to the fields they set by the rule of
// query-parameters.ts, with the parsers of their values.

/**
 * What a query parameter name binds to on a route: its field path, the parser of its values, and
 * the oneofs along it, or why it is refused (unknown, bound elsewhere, no query form).
 *
 * @private
 */
export type QueryTarget =
  | (QueryParameter & {
      readonly kind: "field";
      readonly parse: FieldValueParser;
      /** The oneofs the fields along the path are members of. */
      readonly oneofs: readonly OneofMember[];
    })
  | { readonly kind: "invalid"; readonly description: string };

/** Resolves a query parameter name, in JSON or proto names, on a route. @private */
export function resolveQueryName(route: HttpRoute, name: string): QueryTarget {
  const fields: DescField[] = [];
  let message = route.method.input;
  const parts = name.split(".");
  for (let i = 0; i < parts.length; i++) {
    const field = fieldByName(message, parts[i] as string);
    if (field === undefined) {
      return {
        kind: "invalid",
        description: `unknown query parameter: ${message.typeName} has no field "${parts[i]}"`,
      };
    }
    fields.push(field);
    if (i < parts.length - 1) {
      if (field.fieldKind !== "message" || hasCustomJsonRepresentation(field.message)) {
        return {
          kind: "invalid",
          description: `unknown query parameter: "${parts.slice(0, i + 1).join(".")}" has no fields`,
        };
      }
      message = field.message;
    }
  }
  const refusal = queryRefusal(route, fields);
  if (refusal !== undefined) return { kind: "invalid", description: refusal };
  return {
    kind: "field",
    ...queryParameter(fields),
    parse: fieldValueParser(fields[fields.length - 1] as DescField) as FieldValueParser,
    oneofs: oneofMembers(fields),
  };
}

/** A field of a field path that is a member of a oneof. @private */
export interface OneofMember {
  /** The oneof, by its place: the field path to its message and its name (`filter#place`). */
  readonly oneof: string;
  readonly oneofName: string;
  /** The member, by its field path in proto names. */
  readonly field: string;
}

/** The oneof members along a field path (proto3 `optional` fields are in no oneof). @private */
export function oneofMembers(fields: readonly DescField[]): OneofMember[] {
  const members: OneofMember[] = [];
  fields.forEach((field, i) => {
    if (field.oneof === undefined) return;
    const path = fields.slice(0, i + 1).map((f) => f.name);
    members.push({
      oneof: `${path.slice(0, i).join(".")}#${field.oneof.name}`,
      oneofName: field.oneof.name,
      field: path.join("."),
    });
  });
  return members;
}
