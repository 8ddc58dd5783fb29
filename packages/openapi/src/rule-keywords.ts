import { type DescEnum, isFieldSet, type Message } from "@bufbuild/protobuf";
import {
  type FieldRules,
  file_buf_validate_validate,
  type StringRules,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import type { SchemaObject } from "./openapi-types.js";
import { translateRe2Pattern } from "./re2-pattern.js";

/**
 * The JSON Schema keywords of protovalidate's standard rules of one value: `min_len` is
 * `minLength`, `uuid` is `format: uuid`, `gte` is `minimum`, `in` is `enum`...
 */

/** The keywords of the standard rules of one value (a field, or an item, key or value of one). @private */
export function valueKeywords(rules: FieldRules, enumDesc: DescEnum | undefined): SchemaObject {
  const keywords: SchemaObject = {};
  const { type } = rules;
  switch (type.case) {
    case "string":
      Object.assign(keywords, stringKeywords(type.value));
      break;
    case "bool":
      if (isSet(type.value, "const")) keywords.const = type.value.const;
      break;
    case "float":
    case "double":
    case "int32":
    case "uint32":
    case "sint32":
    case "fixed32":
    case "sfixed32": {
      // JSON numbers. 64-bit integers are strings in ProtoJSON: their bounds are notes.
      const rule = type.value;
      if (isSet(rule, "const")) keywords.const = rule.const;
      if (rule.in.length > 0) keywords.enum = [...rule.in];
      if (rule.notIn.length > 0) keywords.not = { enum: [...rule.notIn] };
      const upper = rule.lessThan;
      const lower = rule.greaterThan;
      const bounds: SchemaObject[] = [];
      if (upper.case !== undefined) {
        bounds.push(upper.case === "lt" ? { exclusiveMaximum: upper.value } : { maximum: upper.value });
      }
      if (lower.case !== undefined) {
        bounds.push(lower.case === "gt" ? { exclusiveMinimum: lower.value } : { minimum: lower.value });
      }
      // protovalidate reads `lt` below `gt` as a range left out: outside it, not inside.
      if (
        upper.case !== undefined &&
        lower.case !== undefined &&
        (upper.value as number) < (lower.value as number)
      ) {
        keywords.anyOf = bounds;
      } else {
        for (const bound of bounds) Object.assign(keywords, bound);
      }
      break;
    }
    case "enum": {
      const names = (numbers: readonly number[]) =>
        numbers.map((n) => enumDesc?.values.find((v) => v.number === n)?.name ?? n);
      const rule = type.value;
      if (isSet(rule, "const")) keywords.const = names([rule.const])[0];
      if (rule.in.length > 0) keywords.enum = names(rule.in);
      if (rule.notIn.length > 0) keywords.not = { enum: names(rule.notIn) };
      break;
    }
    default:
  }
  return keywords;
}

/** Formats of `string` rules that JSON Schema has a `format` for. */
export const STRING_FORMATS = {
  uuid: "uuid",
  email: "email",
  hostname: "hostname",
  ipv4: "ipv4",
  ipv6: "ipv6",
  uri: "uri",
  uriRef: "uri-reference",
} as const;

/** Formats of `string` rules that are a pattern (protovalidate's own definitions). */
export const STRING_FORMAT_PATTERNS = {
  // A UUID without dashes (`tuuid`).
  tuuid: "^[0-9a-fA-F]{32}$",
  // Crockford's base32, the first character at most 7 (https://github.com/ulid/spec).
  ulid: "^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$",
} as const;

function stringKeywords(rule: StringRules): SchemaObject {
  const keywords: SchemaObject = {};
  if (isSet(rule, "const")) keywords.const = rule.const;
  // Both count characters (code points).
  if (isSet(rule, "len")) {
    keywords.minLength = Number(rule.len);
    keywords.maxLength = Number(rule.len);
  }
  if (isSet(rule, "minLen")) keywords.minLength = Number(rule.minLen);
  if (isSet(rule, "maxLen")) keywords.maxLength = Number(rule.maxLen);
  if (rule.in.length > 0) keywords.enum = [...rule.in];
  if (rule.notIn.length > 0) keywords.not = { enum: [...rule.notIn] };

  const patterns: string[] = [];
  if (isSet(rule, "pattern")) {
    const translated = translateRe2Pattern(rule.pattern);
    if ("pattern" in translated) patterns.push(translated.pattern);
  }
  if (isSet(rule, "prefix")) patterns.push(`^${escapeRegExp(rule.prefix)}`);
  if (isSet(rule, "suffix")) patterns.push(`${escapeRegExp(rule.suffix)}$`);
  if (isSet(rule, "contains")) patterns.push(escapeRegExp(rule.contains));
  if (isSet(rule, "notContains")) patterns.push(`^(?![\\s\\S]*${escapeRegExp(rule.notContains)})`);

  const wellKnown = rule.wellKnown;
  if (wellKnown.case !== undefined && wellKnown.value === true) {
    if (wellKnown.case in STRING_FORMATS) {
      keywords.format = STRING_FORMATS[wellKnown.case as keyof typeof STRING_FORMATS];
    } else if (wellKnown.case in STRING_FORMAT_PATTERNS) {
      patterns.push(STRING_FORMAT_PATTERNS[wellKnown.case as keyof typeof STRING_FORMAT_PATTERNS]);
    }
  }
  // JSON Schema has one `pattern` per schema: more are an `allOf` of them.
  const [first, ...others] = patterns;
  if (first !== undefined) keywords.pattern = first;
  if (others.length > 0) keywords.allOf = others.map((pattern) => ({ pattern }));
  if (rule.example.length > 0) keywords.examples = [...rule.example];
  return keywords;
}

/** The rule messages of buf/validate/validate.proto, by type name. */
const RULE_MESSAGES = new Map(file_buf_validate_validate.messages.map((desc) => [desc.typeName, desc]));

/**
 * Whether a rule is declared: validate.proto is proto2, so an unset `optional` reads as its
 * default (`min_len` 0, `pattern` ""), which is a rule of its own when set.
 */
export function isSet(rule: Message, localName: string): boolean {
  const field = RULE_MESSAGES.get(rule.$typeName)?.fields.find((f) => f.localName === localName);
  return field !== undefined && isFieldSet(rule, field);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
