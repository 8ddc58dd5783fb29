import { type DescEnum, type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { FieldBehavior } from "@folio/http-transcoder/google/api/field_behavior_pb.js";
import { isRequiredField } from "@folio/http-transcoder/rules";
import type { CommentLookup } from "./comments.js";
import { type Component, nameComponents, type Variant } from "./component-names.js";
import { getFieldBehaviors } from "./field-behavior.js";
import type { SchemaObject } from "./openapi-types.js";
import {
  constrainFieldSchema,
  fieldRuleNotes,
  messageRuleNotes,
  oneofRequired,
  requiredByRules,
  rulesParagraph,
} from "./validation-rules.js";
import { mapKeySchema, scalarSchema, wellKnownSchema } from "./value-schemas.js";

/**
 * Which way a message travels. A request schema lists what a client may send (`required` from
 * `REQUIRED`); a response schema what the server sends (every field present when the transcoder
 * emits unpopulated fields, `null` for absent ones).
 */
export type Direction = "request" | "response";

/** @private */
export interface SchemaBuilderOptions {
  readonly comments: CommentLookup;
  /** A `format` for a string field (e.g. `uuid`), or undefined for none. */
  readonly stringFormat: ((field: DescField) => string | undefined) | undefined;
  /**
   * Responses carry every field, absent ones (fields with explicit presence: proto3 `optional`,
   * message fields, oneof members) as `null`. Otherwise they are left out, as ProtoJSON does.
   */
  readonly responseFieldsAlwaysPresent: boolean;
  /** Property names are proto field names (`page_size`) rather than JSON names (`pageSize`). */
  readonly useProtoFieldName: boolean;
  /** Responses write enum values as numbers; requests take names or numbers either way. */
  readonly enumAsInteger: boolean;
  /**
   * Fields with explicit presence that responses always set: not nullable in response schemas.
   */
  readonly alwaysSetInResponses: (field: DescField) => boolean;
}

/**
 * Builds JSON Schemas for protobuf messages following the ProtoJSON mapping
 * (https://protobuf.dev/programming-guides/json/), and collects the component schemas they
 * reference.
 *
 * @private
 */
export interface SchemaBuilder {
  /** A `$ref` to the component schema of `message` for one direction. */
  messageRef(message: DescMessage, direction: Direction): SchemaObject;
  /**
   * The schema of `message` without some of its fields (by proto name), inlined: a body whose
   * other fields come from the path.
   */
  messageSchemaWithout(message: DescMessage, direction: Direction, omit: ReadonlySet<string>): SchemaObject;
  /** The schema of a field's value (a query or path parameter, a body or response field). */
  fieldSchema(field: DescField, direction: Direction): SchemaObject;
  /** Names every component and returns them, sorted by name. Call once, after all refs. */
  components(): Record<string, SchemaObject>;
}

/** @private */
export function createSchemaBuilder(options: SchemaBuilderOptions): SchemaBuilder {
  const components = new Map<string, Component>();
  const propertyName = (field: DescField) => (options.useProtoFieldName ? field.name : field.jsonName);

  const refTo = (desc: DescMessage | DescEnum, variant: Variant): SchemaObject => {
    const key = `${variant}:${desc.typeName}`;
    let component = components.get(key);
    if (component === undefined) {
      component = { desc, variant, schema: {}, refs: [] };
      // Registered before it is built, so that recursive messages end in a $ref.
      components.set(key, component);
      component.schema =
        desc.kind === "enum"
          ? enumSchema(desc, variant === "enum-number", options.comments)
          : messageSchema(desc, variant === "request" ? "request" : "response");
    }
    // The name is known once every component is: filled in by components().
    const ref: SchemaObject = { $ref: "" };
    component.refs.push(ref);
    return ref;
  };

  const messageSchema = (
    message: DescMessage,
    direction: Direction,
    omit: ReadonlySet<string> = new Set(),
  ): SchemaObject => {
    const properties: Record<string, SchemaObject> = {};
    const required: string[] = [];
    for (const field of message.fields) {
      if (omit.has(field.name)) continue;
      properties[propertyName(field)] = propertySchema(field, fieldSchema(field, direction), direction, {
        comments: options.comments,
        propertyName,
      });

      // A request requires what the transcoder's rule says (AIP-203) and what protovalidate's
      // `required` does; a response has every field.
      if (
        direction === "request"
          ? isRequiredField(field) || requiredByRules(field)
          : options.responseFieldsAlwaysPresent
      ) {
        required.push(propertyName(field));
      }
    }
    const schema: SchemaObject = { type: "object", properties };
    if (required.length > 0) schema.required = required;
    const description = joinParagraphs(
      options.comments(message),
      rulesParagraph(messageRuleNotes(message, propertyName)),
    );
    if (description !== undefined) schema.description = description;
    if (message.deprecated) schema.deprecated = true;
    return schema;
  };

  /** The schema of a field's value, with the keywords of its protovalidate rules. */
  const fieldSchema = (field: DescField, direction: Direction): SchemaObject => {
    switch (field.fieldKind) {
      case "list":
        return constrainFieldSchema(field, {
          type: "array",
          items: valueSchema(field, field.listKind, direction),
        });
      case "map":
        return constrainFieldSchema(field, {
          type: "object",
          ...mapKeySchema(field.mapKey),
          additionalProperties: valueSchema(field, field.mapKind, direction),
        });
      default: {
        const schema = constrainFieldSchema(field, valueSchema(field, field.fieldKind, direction));
        return direction === "response" && isNullInResponses(field, options) ? nullable(schema) : schema;
      }
    }
  };

  /** The schema of one value of a field: the field itself, a list element or a map value. */
  const valueSchema = (
    field: DescField,
    kind: "scalar" | "enum" | "message",
    direction: Direction,
  ): SchemaObject => {
    if (kind === "scalar") {
      return withStringFormat(scalarSchema(field.scalar ?? ScalarType.STRING), field, options);
    }
    if (kind === "enum" && field.enum !== undefined) {
      if (field.enum.typeName === "google.protobuf.NullValue") return { type: "null" };
      return refTo(field.enum, direction === "response" && options.enumAsInteger ? "enum-number" : "enum");
    }
    const message = field.message;
    if (message === undefined) return {};
    const wellKnown = wellKnownSchema(message);
    if (wellKnown === undefined) return refTo(message, direction);
    return message.typeName === "google.protobuf.StringValue"
      ? withStringFormat(wellKnown, field, options)
      : wellKnown;
  };

  return {
    messageRef: (message, direction) => wellKnownSchema(message) ?? refTo(message, direction),
    messageSchemaWithout: (message, direction, omit) => messageSchema(message, direction, omit),
    fieldSchema,
    components: () => nameComponents(components),
  };
}

/**
 * A field's schema as a property of its message: nullable where a request may send null, with its
 * description and its AIP-203 behaviours (`readOnly`, `writeOnly`).
 */
function propertySchema(
  field: DescField,
  schema: SchemaObject,
  direction: Direction,
  names: { comments: CommentLookup; propertyName: (field: DescField) => string },
): SchemaObject {
  const behaviors = getFieldBehaviors(field);
  let property = schema;
  // The JSON mapping reads null as "not set": a request may send null for a field that can be
  // absent (one with explicit presence), unless the field is required.
  if (
    direction === "request" &&
    hasExplicitPresence(field) &&
    !behaviors.has(FieldBehavior.REQUIRED) &&
    !requiredByRules(field)
  ) {
    property = nullable(property);
  }
  const description = fieldDescription(field, names.comments, names.propertyName);
  if (description !== undefined) property.description = description;
  if (behaviors.has(FieldBehavior.OUTPUT_ONLY)) property.readOnly = true;
  if (behaviors.has(FieldBehavior.INPUT_ONLY)) property.writeOnly = true;
  if (field.deprecated) property.deprecated = true;
  return property;
}

/**
 * Whether a response sends a field as null when it is absent: a field with explicit presence, when
 * every field is sent, unless the API promises to always set it.
 */
function isNullInResponses(field: DescField, options: SchemaBuilderOptions): boolean {
  return (
    options.responseFieldsAlwaysPresent && hasExplicitPresence(field) && !options.alwaysSetInResponses(field)
  );
}

/** A string field's schema with the `format` the options give the field, if any. */
function withStringFormat(
  schema: SchemaObject,
  field: DescField,
  options: SchemaBuilderOptions,
): SchemaObject {
  if (schema.type !== "string") return schema;
  const format = options.stringFormat?.(field);
  if (format !== undefined) schema.format = format;
  return schema;
}

/** Whether a singular field can be absent: a message field, proto3 `optional`, a oneof member. */
function hasExplicitPresence(field: DescField): boolean {
  return (
    (field.fieldKind === "scalar" || field.fieldKind === "enum" || field.fieldKind === "message") &&
    field.presence !== FeatureSet_FieldPresence.IMPLICIT
  );
}

/** Adds `null` to the values a schema allows. */
function nullable(schema: SchemaObject): SchemaObject {
  // Keywords that would refuse null whatever the type says: kept apart from it.
  if (
    schema.$ref !== undefined ||
    schema.allOf !== undefined ||
    schema.anyOf !== undefined ||
    schema.const !== undefined ||
    schema.not !== undefined
  ) {
    return { anyOf: [schema, { type: "null" }] };
  }
  if (typeof schema.type === "string") {
    if (schema.type === "null") return schema;
    const result: SchemaObject = { ...schema, type: [schema.type, "null"] };
    if (schema.enum !== undefined) result.enum = [...schema.enum, null];
    return result;
  }
  // No type (google.protobuf.Value): already allows null.
  return schema;
}

/**
 * A field's description: its comment, its oneof, and what its protovalidate rules say that no
 * keyword of its schema does (CEL rules' messages first).
 *
 * @private
 */
export function fieldDescription(
  field: DescField,
  comments: CommentLookup,
  propertyName: (field: DescField) => string,
): string | undefined {
  const comment = comments(field);
  const rules = rulesParagraph(fieldRuleNotes(field));
  const oneof = field.oneof;
  // proto3 `optional` is a synthetic oneof of one field: nothing to say about it.
  if (oneof === undefined || field.proto.proto3Optional) return joinParagraphs(comment, rules);
  const members = oneof.fields.map((f) => `\`${propertyName(f)}\``);
  const note = `Part of oneof \`${oneof.name}\`: ${oneofRequired(oneof) ? "exactly" : "at most"} one of ${members.join(", ")} is set.`;
  return joinParagraphs(comment, note, rules);
}

function joinParagraphs(...paragraphs: (string | undefined)[]): string | undefined {
  const present = paragraphs.filter((p) => p !== undefined);
  return present.length === 0 ? undefined : present.join("\n\n");
}

/** An enum by its value names, or by its numbers (with the names in the description). */
function enumSchema(desc: DescEnum, asNumbers: boolean, comments: CommentLookup): SchemaObject {
  const schema: SchemaObject = asNumbers
    ? { type: "integer", format: "int32", enum: desc.values.map((value) => value.number) }
    : { type: "string", enum: desc.values.map((value) => value.name) };
  const lines: string[] = [];
  const comment = comments(desc);
  if (comment !== undefined) lines.push(comment, "");
  for (const value of desc.values) {
    const valueComment = comments(value);
    const label = asNumbers ? `\`${value.number}\` (\`${value.name}\`)` : `\`${value.name}\``;
    if (valueComment !== undefined) lines.push(`- ${label}: ${valueComment.replaceAll("\n", " ")}`);
    else if (asNumbers) lines.push(`- ${label}`);
  }
  const description = lines.join("\n").trim();
  if (description !== "") schema.description = description;
  if (desc.deprecated) schema.deprecated = true;
  return schema;
}
