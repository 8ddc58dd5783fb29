import {
  type DescField,
  type DescMessage,
  type DescOneof,
  getOption,
  hasOption,
  ScalarType,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import {
  type FieldRules,
  field as fieldRulesOption,
  Ignore,
  message as messageRulesOption,
  oneof as oneofRulesOption,
  type Rule,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import type { SchemaObject } from "./openapi-types.js";
import { translateRe2Pattern } from "./re2-pattern.js";
import { isSet, STRING_FORMAT_PATTERNS, STRING_FORMATS, valueKeywords } from "./rule-keywords.js";
import { meetsKeywords, zeroValue } from "./zero-value.js";

/**
 * The [protovalidate](https://protovalidate.com/) rules of a field (`(buf.validate.field)`), as
 * JSON Schema: the standard rules that have a keyword become it (`min_len` is `minLength`, `uuid`
 * is `format: uuid`, `gte` is `minimum`, `in` is `enum`...), and the others, CEL rules first, are
 * sentences for the field's description. Read from the descriptors, so any API's rules are.
 */

/** The field's rules, unless it has none or they are switched off (`ignore = IGNORE_ALWAYS`). @private */
export function fieldRules(field: DescField): FieldRules | undefined {
  if (!hasOption(field, fieldRulesOption)) return undefined;
  const rules = getOption(field, fieldRulesOption);
  return rules.ignore === Ignore.ALWAYS ? undefined : rules;
}

/**
 * Whether a request must send the field by its rules: they say `required`, or the field has no
 * presence (leaving it out sends its zero value, which protovalidate checks too) and its zero
 * value breaks a rule the schema states (`int32.gte = 1`, `string.in`, `repeated.min_items`).
 *
 * @private
 */
export function requiredByRules(field: DescField): boolean {
  const rules = fieldRules(field);
  if (rules === undefined) return false;
  if (rules.required) return true;
  if (hasPresence(field) || rules.ignore === Ignore.IF_ZERO_VALUE) return false;
  return !meetsKeywords(zeroValue(field), ownKeywords(field, rules));
}

/**
 * Adds the keywords of a field's rules to the schema of its value (the field itself, or a list or
 * a map as a whole, and their items, keys and values): in place, or around it (`allOf`) where the
 * schema is a `$ref`. Returns the schema to use.
 *
 * @private
 */
export function constrainFieldSchema(field: DescField, schema: SchemaObject): SchemaObject {
  const rules = fieldRules(field);
  if (rules === undefined) return schema;
  const { type } = rules;
  if (
    field.fieldKind === "list" &&
    type.case === "repeated" &&
    type.value.items !== undefined &&
    schema.items
  ) {
    schema.items = withKeywords(schema.items, valueKeywords(type.value.items, field.enum));
  }
  if (field.fieldKind === "map" && type.case === "map") {
    if (type.value.keys !== undefined) {
      schema.propertyNames = { ...schema.propertyNames, ...valueKeywords(type.value.keys, undefined) };
    }
    if (type.value.values !== undefined && typeof schema.additionalProperties === "object") {
      const valueEnum = field.mapKind === "enum" ? field.enum : undefined;
      schema.additionalProperties = withKeywords(
        schema.additionalProperties,
        valueKeywords(type.value.values, valueEnum),
      );
    }
  }
  const keywords = ownKeywords(field, rules);
  if (rules.ignore === Ignore.IF_ZERO_VALUE && Object.keys(keywords).length > 0) {
    // The zero value is exempt from the rules.
    return withKeywords(schema, { anyOf: [{ const: zeroValue(field) }, keywords] });
  }
  return withKeywords(schema, keywords);
}

/** The keywords of a field's rules on the field itself (a list or map as a whole). */
function ownKeywords(field: DescField, rules: FieldRules): SchemaObject {
  const keywords: SchemaObject = {};
  const { type } = rules;
  switch (field.fieldKind) {
    case "list":
      if (type.case === "repeated" && isSet(type.value, "minItems"))
        keywords.minItems = Number(type.value.minItems);
      if (type.case === "repeated" && isSet(type.value, "maxItems"))
        keywords.maxItems = Number(type.value.maxItems);
      if (type.case === "repeated" && type.value.unique) keywords.uniqueItems = true;
      if (rules.required && keywords.minItems === undefined) keywords.minItems = 1;
      return keywords;
    case "map":
      if (type.case === "map" && isSet(type.value, "minPairs"))
        keywords.minProperties = Number(type.value.minPairs);
      if (type.case === "map" && isSet(type.value, "maxPairs"))
        keywords.maxProperties = Number(type.value.maxPairs);
      if (rules.required && keywords.minProperties === undefined) keywords.minProperties = 1;
      return keywords;
    default: {
      Object.assign(keywords, valueKeywords(rules, field.fieldKind === "enum" ? field.enum : undefined));
      // `required` of a string without presence means "not the zero value": not empty.
      const isString = field.fieldKind === "scalar" && field.scalar === ScalarType.STRING;
      if (rules.required && !hasPresence(field) && isString && (keywords.minLength ?? 0) === 0) {
        keywords.minLength = 1;
      }
      return keywords;
    }
  }
}

/**
 * What a field's rules say that no keyword does, one sentence each: the message of each CEL rule
 * (the expression where it has none), and the standard rules JSON Schema cannot express.
 *
 * @private
 */
export function fieldRuleNotes(field: DescField): string[] {
  const rules = fieldRules(field);
  if (rules === undefined) return [];
  const notes = celNotes(rules.cel, rules.celExpression);
  notes.push(...standardRuleNotes(rules));
  if (rules.type.case === "repeated" && rules.type.value.items !== undefined) {
    const items = rules.type.value.items;
    for (const note of [...celNotes(items.cel, items.celExpression), ...standardRuleNotes(items)]) {
      notes.push(`each item: ${note}`);
    }
  }
  if (rules.type.case === "map") {
    for (const [part, partRules] of [
      ["each key", rules.type.value.keys],
      ["each value", rules.type.value.values],
    ] as const) {
      if (partRules === undefined) continue;
      for (const note of [
        ...celNotes(partRules.cel, partRules.celExpression),
        ...standardRuleNotes(partRules),
      ]) {
        notes.push(`${part}: ${note}`);
      }
    }
  }
  return notes;
}

/** The message-level rules (`(buf.validate.message)`): CEL rules and oneof rules, as sentences. @private */
export function messageRuleNotes(message: DescMessage, propertyName: (field: DescField) => string): string[] {
  if (!hasOption(message, messageRulesOption)) return [];
  const rules = getOption(message, messageRulesOption);
  const notes = celNotes(rules.cel, rules.celExpression);
  for (const oneof of rules.oneof) {
    const names = oneof.fields.map((name) => {
      const field = message.fields.find((f) => f.name === name);
      return `\`${field === undefined ? name : propertyName(field)}\``;
    });
    notes.push(`${oneof.required ? "exactly" : "at most"} one of ${names.join(", ")} is set`);
  }
  return notes;
}

/** Whether a oneof's rules require one of its fields (`(buf.validate.oneof).required`). @private */
export function oneofRequired(oneof: DescOneof): boolean {
  return hasOption(oneof, oneofRulesOption) && getOption(oneof, oneofRulesOption).required;
}

/** Notes as a paragraph of a description. @private */
export function rulesParagraph(notes: readonly string[]): string | undefined {
  if (notes.length === 0) return undefined;
  return `Validation rules:\n${notes.map((note) => `- ${note}`).join("\n")}`;
}

/** Sentences for standard rules of one value that JSON Schema has no keyword for. */
function standardRuleNotes(rules: FieldRules): string[] {
  const notes: string[] = [];
  const { type } = rules;
  switch (type.case) {
    case "string": {
      const rule = type.value;
      if (isSet(rule, "pattern")) {
        const translated = translateRe2Pattern(rule.pattern);
        if ("untranslatable" in translated) {
          notes.push(
            `must match the RE2 regular expression \`${rule.pattern}\` (not given as \`pattern\`: it uses ${translated.untranslatable})`,
          );
        }
      }
      if (isSet(rule, "lenBytes")) notes.push(`must be ${rule.lenBytes} bytes long in UTF-8`);
      if (isSet(rule, "minBytes")) notes.push(`must be at least ${rule.minBytes} bytes long in UTF-8`);
      if (isSet(rule, "maxBytes")) notes.push(`must be at most ${rule.maxBytes} bytes long in UTF-8`);
      const wellKnown = rule.wellKnown;
      if (
        wellKnown.case !== undefined &&
        wellKnown.value !== false &&
        !(wellKnown.case in STRING_FORMATS) &&
        !(wellKnown.case in STRING_FORMAT_PATTERNS)
      ) {
        notes.push(`must be a valid ${wellKnown.case} (protovalidate's \`${wellKnown.case}\` rule)`);
      }
      break;
    }
    case "int64":
    case "uint64":
    case "sint64":
    case "fixed64":
    case "sfixed64": {
      const rule = type.value;
      if (isSet(rule, "const")) notes.push(`must be ${rule.const}`);
      if (rule.lessThan.case !== undefined) {
        notes.push(`must be ${rule.lessThan.case === "lt" ? "less than" : "at most"} ${rule.lessThan.value}`);
      }
      if (rule.greaterThan.case !== undefined) {
        notes.push(
          `must be ${rule.greaterThan.case === "gt" ? "greater than" : "at least"} ${rule.greaterThan.value}`,
        );
      }
      if (rule.in.length > 0) notes.push(`must be one of ${rule.in.join(", ")}`);
      if (rule.notIn.length > 0) notes.push(`must not be one of ${rule.notIn.join(", ")}`);
      break;
    }
    case "bytes": {
      const rule = type.value;
      if (isSet(rule, "len")) notes.push(`must be ${rule.len} bytes long`);
      if (isSet(rule, "minLen")) notes.push(`must be at least ${rule.minLen} bytes long`);
      if (isSet(rule, "maxLen")) notes.push(`must be at most ${rule.maxLen} bytes long`);
      break;
    }
    case "duration":
    case "timestamp":
    case "any":
    case "fieldMask":
      notes.push(`see the \`${type.case}\` rules of the field in the proto`);
      break;
    default:
  }
  return notes;
}

function celNotes(cel: readonly Rule[], expressions: readonly string[]): string[] {
  return [
    ...cel.map((rule) => (rule.message !== "" ? rule.message : `\`${rule.expression}\``)),
    ...expressions.map((expression) => `\`${expression}\``),
  ];
}

/** The schema with the keywords added: in place, or with `allOf` beside a `$ref` (kept as it is). */
function withKeywords(schema: SchemaObject, keywords: SchemaObject): SchemaObject {
  if (Object.keys(keywords).length === 0) return schema;
  if (schema.$ref !== undefined) return { allOf: [schema, keywords] };
  for (const [key, value] of Object.entries(keywords) as [keyof SchemaObject, never][]) {
    if (key === "allOf" && schema.allOf !== undefined)
      schema.allOf = [...schema.allOf, ...(value as SchemaObject[])];
    else if (key === "pattern" && schema.pattern !== undefined) {
      schema.allOf = [...(schema.allOf ?? []), { pattern: value }];
    } else schema[key] = value;
  }
  return schema;
}

function hasPresence(field: DescField): boolean {
  return field.presence !== FeatureSet_FieldPresence.IMPLICIT;
}
