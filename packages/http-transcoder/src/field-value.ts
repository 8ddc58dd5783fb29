import {
  create,
  type DescEnum,
  type DescField,
  type DescMessage,
  fromJson,
  protoInt64,
  ScalarType,
} from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { hasUrlForm } from "./url-form.js";

/**
 * Converts the text of a path variable or query parameter to the value of a field, as the
 * `ReflectMessage` API expects it. Throws an `Error` whose message says what is wrong with the
 * text, to be shown to the client.
 *
 * @private
 */
export type FieldValueParser = (text: string) => unknown;

const parsers = new WeakMap<DescField, FieldValueParser>();

/**
 * The parser for a field that a URL can set: a scalar, an enum, or a well-known type written as
 * its JSON string (http.proto: "fields which are mapped to URL query parameters must have a
 * primitive type or a repeated primitive type or a non-repeated message type"). The values are
 * written as in the protobuf JSON mapping: enums by name or number, 64-bit integers in decimal,
 * bytes in base64, Timestamps in RFC 3339, Durations as "1.5s", FieldMasks as "a,b.c".
 * Returns `undefined` for a field that no URL can set (a map, a message other than those types).
 *
 * @private
 */
export function fieldValueParser(field: DescField): FieldValueParser | undefined {
  let parser = parsers.get(field);
  if (parser === undefined) {
    parser = compileParser(field);
    if (parser !== undefined) {
      parsers.set(field, parser);
    }
  }
  return parser;
}

function compileParser(field: DescField): FieldValueParser | undefined {
  // Which fields a URL can set is url-form.ts's rule, which the query parameters are listed by.
  if (!hasUrlForm(field)) {
    return undefined;
  }
  switch (field.fieldKind) {
    case "scalar":
      return scalarParser(field.scalar);
    case "enum":
      return enumParser(field.enum);
    case "message":
      return messageParser(field.message);
    case "list":
      switch (field.listKind) {
        case "scalar":
          return scalarParser(field.scalar);
        case "enum":
          return enumParser(field.enum);
        case "message":
          return messageParser(field.message);
      }
      break;
    case "map":
      return undefined;
  }
}

/** The parser of a well-known type with a string form (a wrapper, or one parsed from its JSON string). */
function messageParser(message: DescMessage): FieldValueParser {
  if (isWrapperDesc(message)) {
    const inner = message.fields[0];
    const parseInner = scalarParser(inner.scalar);
    return (text) => reflect(message, create(message, { value: parseInner(text) as never }));
  }
  return (text): ReflectMessage => {
    try {
      return reflect(message, fromJson(message, text));
    } catch {
      throw new Error(`invalid ${message.name}: "${text}"`);
    }
  };
}

function enumParser(descEnum: DescEnum): FieldValueParser {
  const byName = new Map(descEnum.values.map((value) => [value.name, value.number]));
  const numbers = new Set(descEnum.values.map((value) => value.number));
  return (text) => {
    const number = byName.get(text);
    if (number !== undefined) {
      return number;
    }
    if (/^-?\d+$/.test(text)) {
      const n = Number(text);
      // Open enums (proto3) accept any int32, closed enums only their values (protobuf JSON
      // mapping, "enum").
      if (n >= -2147483648 && n <= 2147483647 && (descEnum.open || numbers.has(n))) {
        return n;
      }
    }
    throw new Error(`invalid value for enum ${descEnum.typeName}: "${text}"`);
  };
}

const int32Pattern = /^-?\d{1,10}$/;
const floatPattern = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const base64Pattern = /^[A-Za-z0-9+/\-_]*={0,2}$/;

function scalarParser(scalar: ScalarType): FieldValueParser {
  switch (scalar) {
    case ScalarType.STRING:
      return (text) => text;
    case ScalarType.BOOL:
      return (text) => {
        if (text === "true") return true;
        if (text === "false") return false;
        throw new Error(`invalid boolean: "${text}" (expected true or false)`);
      };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return integerParser(-2147483648, 2147483647);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return integerParser(0, 4294967295);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return (text) => {
        if (!/^-?\d+$/.test(text)) {
          throw new Error(`invalid integer: "${text}"`);
        }
        try {
          return protoInt64.parse(text);
        } catch {
          throw new Error(`integer out of range: "${text}"`);
        }
      };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return (text) => {
        if (!/^\d+$/.test(text)) {
          throw new Error(`invalid unsigned integer: "${text}"`);
        }
        try {
          return protoInt64.uParse(text);
        } catch {
          throw new Error(`integer out of range: "${text}"`);
        }
      };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      // A float is rounded to float32 on the wire, so it is in range when it rounds to a finite
      // float32: Go and Java print the largest float32 as 3.4028235e38, which is above it as a
      // float64 and rounds down to it.
      const round = scalar === ScalarType.FLOAT ? Math.fround : (n: number) => n;
      return (text) => {
        // The JSON mapping's special values (protobuf JSON mapping, "float, double").
        if (text === "NaN") return Number.NaN;
        if (text === "Infinity") return Number.POSITIVE_INFINITY;
        if (text === "-Infinity") return Number.NEGATIVE_INFINITY;
        if (!floatPattern.test(text)) {
          throw new Error(`invalid number: "${text}"`);
        }
        const n = round(Number(text));
        if (!Number.isFinite(n)) {
          throw new Error(`number out of range: "${text}"`);
        }
        // The value a float field holds: what a binary round trip would have made of it.
        return n;
      };
    }
    case ScalarType.BYTES:
      return (text) => {
        if (!base64Pattern.test(text)) {
          throw new Error(`invalid base64: "${text}"`);
        }
        return base64Decode(text);
      };
  }
}

function integerParser(min: number, max: number): FieldValueParser {
  return (text) => {
    const n = Number(text);
    if (!int32Pattern.test(text)) {
      throw new Error(`invalid integer: "${text}"`);
    }
    if (n < min || n > max) {
      throw new Error(`integer out of range: "${text}"`);
    }
    return n;
  };
}

/**
 * Sets `value` (as returned by a {@link FieldValueParser}) at the end of a field path, creating the
 * messages along the way; appends it when the last field is a list.
 *
 * @private
 */
export function setFieldPathValue(
  message: ReflectMessage,
  fields: readonly DescField[],
  value: unknown,
): void {
  let current = message;
  for (let i = 0; i < fields.length - 1; i++) {
    const field = fields[i] as DescField & { fieldKind: "message" };
    if (current.isSet(field)) {
      current = current.get(field);
    } else {
      // Attached at once: the parent holds the same object the next iteration fills in.
      const child = reflect(field.message);
      current.set(field, child);
      current = child;
    }
  }
  const leaf = fields[fields.length - 1] as DescField;
  if (leaf.fieldKind === "list") {
    current.get(leaf).add(value);
  } else {
    current.set(leaf, value);
  }
}
