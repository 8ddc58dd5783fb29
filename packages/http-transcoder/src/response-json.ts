import type { DescField, DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";

/**
 * Completes the JSON of a message written with `alwaysEmitImplicit` so that every field is
 * present: the protobuf JSON mapping leaves out fields that are not set, which clients of a REST
 * API read as "no such field". Implicit-presence fields already carry their defaults (`""`, `0`,
 * `[]`, `{}`); this adds `null` for every unset field with explicit presence (message fields,
 * `optional` fields, members of a oneof), in nested messages too.
 *
 * @private
 */
export type JsonCompleter = (json: JsonValue) => void;

interface FieldPlan {
  readonly key: string;
  /** Null when absent: the field has explicit presence. */
  readonly nullable: boolean;
  /** What to complete inside the value, if anything. */
  readonly nested: "message" | "list" | "map" | undefined;
  readonly message: DescMessage | undefined;
}

/**
 * Compiles the {@link JsonCompleter} of a message. Keys are JSON names, or proto names with
 * `useProtoFieldName`, as `toJson` wrote them.
 *
 * @private
 */
export function createJsonCompleter(message: DescMessage, useProtoFieldName: boolean): JsonCompleter {
  const plans = new Map<DescMessage, readonly FieldPlan[]>();
  const planOf = (desc: DescMessage): readonly FieldPlan[] => {
    let plan = plans.get(desc);
    if (plan === undefined) {
      plan = desc.fields.map((field) => planField(field, useProtoFieldName));
      plans.set(desc, plan);
    }
    return plan;
  };
  const complete = (desc: DescMessage, json: JsonObject): void => {
    for (const plan of planOf(desc)) {
      const value = json[plan.key];
      if (value === undefined) {
        if (plan.nullable) {
          json[plan.key] = null;
        }
        continue;
      }
      if (plan.nested === undefined || value === null || plan.message === undefined) {
        continue;
      }
      switch (plan.nested) {
        case "message":
          complete(plan.message, value as JsonObject);
          break;
        case "list":
          for (const item of value as JsonObject[]) complete(plan.message, item);
          break;
        case "map":
          for (const item of Object.values(value as JsonObject)) complete(plan.message, item as JsonObject);
          break;
      }
    }
  };
  if (hasCustomJsonRepresentation(message)) {
    return () => {};
  }
  return (json) => {
    if (typeof json === "object" && json !== null && !Array.isArray(json)) {
      complete(message, json);
    }
  };
}

function planField(field: DescField, useProtoFieldName: boolean): FieldPlan {
  const key = useProtoFieldName ? field.name : field.jsonName;
  // proto3 implicit presence is 2 (google.protobuf.FeatureSet.FieldPresence.IMPLICIT).
  const explicit = field.presence !== 2;
  switch (field.fieldKind) {
    case "scalar":
    case "enum":
      return { key, nullable: explicit, nested: undefined, message: undefined };
    case "message":
      return {
        key,
        nullable: true,
        nested: hasCustomJsonRepresentation(field.message) ? undefined : "message",
        message: field.message,
      };
    case "list":
      return {
        key,
        nullable: false,
        nested:
          field.listKind === "message" && !hasCustomJsonRepresentation(field.message) ? "list" : undefined,
        message: field.listKind === "message" ? field.message : undefined,
      };
    case "map":
      return {
        key,
        nullable: false,
        nested:
          field.mapKind === "message" && !hasCustomJsonRepresentation(field.message) ? "map" : undefined,
        message: field.mapKind === "message" ? field.message : undefined,
      };
  }
}
