import { type DescMessage, ScalarType } from "@bufbuild/protobuf";
import type { SchemaObject } from "./openapi-types.js";

/** ProtoJSON's form of each scalar type. 64-bit integers are strings: JSON numbers lose precision. @private */
export function scalarSchema(scalar: ScalarType): SchemaObject {
  switch (scalar) {
    case ScalarType.DOUBLE:
      return { type: "number", format: "double" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "int64", minimum: 0, maximum: 4294967295 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: "string", format: "int64", pattern: "^-?[0-9]+$" };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "string", format: "uint64", pattern: "^[0-9]+$" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
  }
}

/** Map keys are JSON object keys, so strings: integer and bool keys in their decimal or literal form. @private */
export function mapKeySchema(key: ScalarType): Pick<SchemaObject, "propertyNames"> {
  switch (key) {
    case ScalarType.STRING:
      return {};
    case ScalarType.BOOL:
      return { propertyNames: { enum: ["true", "false"] } };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { propertyNames: { pattern: "^[0-9]+$" } };
    default:
      return { propertyNames: { pattern: "^-?[0-9]+$" } };
  }
}

/**
 * The well-known types with a JSON form of their own, inlined where they are used. Returns a new
 * object each time: callers add descriptions to it.
 *
 * @private
 */
export function wellKnownSchema(message: DescMessage): SchemaObject | undefined {
  switch (message.typeName) {
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time" };
    case "google.protobuf.Duration":
      return {
        type: "string",
        pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$",
        description:
          "A duration in seconds with up to nine fractional digits and the suffix `s`, e.g. `1.5s`.",
        examples: ["1.5s"],
      };
    case "google.protobuf.FieldMask":
      return {
        type: "string",
        description: "Field paths in lowerCamelCase, separated by commas, e.g. `name,parentId`.",
      };
    case "google.protobuf.Struct":
      return { type: "object", additionalProperties: true };
    case "google.protobuf.Value":
      return {};
    case "google.protobuf.ListValue":
      return { type: "array", items: {} };
    case "google.protobuf.Any":
      return {
        type: "object",
        properties: { "@type": { type: "string", description: "A URL naming the type of the message." } },
        required: ["@type"],
        additionalProperties: true,
      };
    case "google.protobuf.Empty":
      return { type: "object" };
    case "google.protobuf.DoubleValue":
      return scalarSchema(ScalarType.DOUBLE);
    case "google.protobuf.FloatValue":
      return scalarSchema(ScalarType.FLOAT);
    case "google.protobuf.Int64Value":
      return scalarSchema(ScalarType.INT64);
    case "google.protobuf.UInt64Value":
      return scalarSchema(ScalarType.UINT64);
    case "google.protobuf.Int32Value":
      return scalarSchema(ScalarType.INT32);
    case "google.protobuf.UInt32Value":
      return scalarSchema(ScalarType.UINT32);
    case "google.protobuf.BoolValue":
      return scalarSchema(ScalarType.BOOL);
    case "google.protobuf.StringValue":
      return scalarSchema(ScalarType.STRING);
    case "google.protobuf.BytesValue":
      return scalarSchema(ScalarType.BYTES);
    default:
      return undefined;
  }
}
