import type { DescField, DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";

/**
 * Completes the JSON of a message written with `alwaysEmitImplicit` so that every field is
 * present, in the order of the message's fields: the protobuf JSON mapping leaves out fields that are not set, which clients of a REST
 * API read as "no such field". Implicit-presence fields already carry their defaults (`""`, `0`,
 * `[]`, `{}`); this adds `null` for every unset field with explicit presence (message fields,
 * `optional` fields, members of a oneof), in nested messages too.
 *
 * @private
 */
export type JsonCompleter = (json: JsonValue) => JsonValue;

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
  // Returns the object completed: the same one when nothing was missing, else a copy with the
  // keys in field order, so that an absent field reads where the schema lists it.
  const complete = (desc: DescMessage, json: JsonObject): JsonObject => {
    const fields = planOf(desc);
    let missing = false;
    for (const plan of fields) {
      const value = json[plan.key];
      if (value === undefined) {
        if (plan.nullable) missing = true;
        continue;
      }
      if (plan.nested === undefined || value === null || plan.message === undefined) {
        continue;
      }
      const nested = plan.message;
      switch (plan.nested) {
        case "message":
          json[plan.key] = complete(nested, value as JsonObject);
          break;
        case "list":
          json[plan.key] = (value as JsonObject[]).map((item) => complete(nested, item));
          break;
        case "map":
          for (const [k, item] of Object.entries(value as JsonObject)) {
            (value as JsonObject)[k] = complete(nested, item as JsonObject);
          }
          break;
      }
    }
    if (!missing) return json;
    const ordered: JsonObject = {};
    for (const plan of fields) {
      const value = json[plan.key];
      if (value !== undefined) ordered[plan.key] = value;
      else if (plan.nullable) ordered[plan.key] = null;
    }
    return ordered;
  };
  if (hasCustomJsonRepresentation(message)) {
    return (json) => json;
  }
  return (json) =>
    typeof json === "object" && json !== null && !Array.isArray(json) ? complete(message, json) : json;
}

function planField(field: DescField, useProtoFieldName: boolean): FieldPlan {
  const key = useProtoFieldName ? field.name : field.jsonName;
  const explicit = field.presence !== FeatureSet_FieldPresence.IMPLICIT;
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
