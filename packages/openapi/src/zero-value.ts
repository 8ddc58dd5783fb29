import { type DescField, ScalarType } from "@bufbuild/protobuf";
import type { SchemaObject } from "./openapi-types.js";

/**
 * The zero value of a field without presence, as JSON: what a request that leaves the field out
 * holds, which protovalidate checks like any other value.
 *
 * @private
 */
export function zeroValue(field: DescField): unknown {
  switch (field.fieldKind) {
    case "list":
      return [];
    case "map":
      return {};
    case "enum":
      return field.enum.values[0]?.name ?? 0;
    case "scalar":
      if (field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES) return "";
      return field.scalar === ScalarType.BOOL ? false : 0;
    default:
      return null;
  }
}

/**
 * Whether a value meets the keywords this package writes for rules: the part of JSON Schema that
 * rule-keywords.ts and validation-rules.ts produce, not all of it.
 *
 * @private
 */
export function meetsKeywords(value: unknown, schema: SchemaObject): boolean {
  if (schema.const !== undefined && schema.const !== value) return false;
  if (schema.enum !== undefined && !schema.enum.includes(value)) return false;
  if (schema.not !== undefined && meetsKeywords(value, schema.not)) return false;
  if (schema.anyOf !== undefined && !schema.anyOf.some((s) => meetsKeywords(value, s))) return false;
  if (schema.allOf !== undefined && !schema.allOf.every((s) => meetsKeywords(value, s))) return false;
  if (typeof value === "string") {
    const length = [...value].length;
    if (length < (schema.minLength ?? 0) || length > (schema.maxLength ?? Number.POSITIVE_INFINITY))
      return false;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) return false;
    // Every format a rule gives refuses the empty string but a relative reference.
    if (schema.format !== undefined && value === "" && schema.format !== "uri-reference") return false;
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) return false;
    if (schema.maximum !== undefined && value > schema.maximum) return false;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false;
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false;
  }
  if (Array.isArray(value) && value.length < (schema.minItems ?? 0)) return false;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    if (Object.keys(value).length < (schema.minProperties ?? 0)) return false;
  }
  return true;
}
