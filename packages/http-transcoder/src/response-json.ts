import {
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type JsonWriteOptions,
  type Message,
  type Registry,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { FeatureSet_FieldPresence, hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { type FieldConverter, literalBuilder, objectBuilder } from "./json-object-builder.js";
import { type TimestampLike, timestampJson } from "./timestamp-json.js";

/**
 * Writes a message as the JSON text of a REST response: the protobuf JSON mapping
 * (https://protobuf.dev/programming-guides/json/), with every field present, in the order the
 * message declares them. The mapping leaves out fields that are not set, which clients of a REST
 * API read as "no such field"; here implicit-presence fields carry their defaults (`""`, `0`,
 * `[]`, `{}`) and fields with explicit presence (messages, `optional` fields, members of a oneof)
 * that are not set are `null`, in nested messages too.
 *
 * @private
 */
export type MessageJsonWriter = (message: Message) => string;

/**
 * The fields of a message a partial response writes (AIP-157, the `fields` parameter), each with
 * the selection inside it, or null for the whole field.
 *
 * @private
 */
export type FieldSelection = ReadonlyMap<DescField, FieldSelection | null>;

/** How a {@link MessageJsonWriter} writes names and enums, and resolves `Any` and extensions. @private */
export interface ResponseJsonOptions {
  readonly useProtoFieldName: boolean;
  readonly enumAsInteger: boolean;
  readonly registry: Registry | undefined;
}

/** Turns a field's value, as protobuf-es holds it, into its JSON value. */
type ValueConverter = (value: unknown) => JsonValue;

// Written by hand rather than with `toJson`, its completion and `JSON.stringify`: that walked
// every response twice (once to build the tree `toJson` leaves out fields of, once to add them).
// Here each message type gets a converter compiled once from its descriptor that builds the JSON
// value as it will be sent, every key in place, which `JSON.stringify` then writes as one flat
// string. (Concatenating the text by hand instead is slower: sockets must flatten such strings.)

/**
 * Compiles the writer of a message type. `omit` leaves out one field (the transcoder sends a next
 * page token as a `Link` header instead).
 *
 * @private
 */
export function createMessageJsonWriter(
  desc: DescMessage,
  options: ResponseJsonOptions,
  omit?: DescField,
  selection?: FieldSelection,
): MessageJsonWriter {
  const convert = new JsonValueCompiler(options).message(desc, omit, selection);
  return (message) => JSON.stringify(convert(message));
}

/**
 * Compiles the writer of one field's value, as written inside its message (`null` when a field
 * with explicit presence is not set): for a route whose `response_body` is that field.
 *
 * @private
 */
export function createFieldJsonWriter(field: DescField, options: ResponseJsonOptions): MessageJsonWriter {
  const convert = new JsonValueCompiler(options).field(field);
  return (message) => JSON.stringify(convert(message as unknown as Record<string, unknown>));
}

class JsonValueCompiler {
  /** Converters by message type, so that recursive types compile once. */
  private readonly converters = new Map<DescMessage, (message: Message) => JsonValue>();
  private readonly toJsonOptions: Partial<JsonWriteOptions>;

  constructor(private readonly options: ResponseJsonOptions) {
    this.toJsonOptions = {
      alwaysEmitImplicit: true,
      useProtoFieldName: options.useProtoFieldName,
      enumAsInteger: options.enumAsInteger,
      registry: options.registry,
    };
  }

  message(desc: DescMessage, omit?: DescField, selection?: FieldSelection): (message: Message) => JsonValue {
    // A partial response's converters are its own: the shared ones write every field.
    const shared = omit === undefined && selection === undefined;
    if (shared) {
      const known = this.converters.get(desc);
      if (known !== undefined) return known;
    }
    if (hasCustomJsonRepresentation(desc)) {
      const custom = this.customJson(desc);
      if (shared) this.converters.set(desc, custom);
      return custom;
    }
    const fields = desc.fields.filter(
      (field) => field !== omit && (selection === undefined || selection.has(field)),
    );
    const keys = fields.map((field) => (this.options.useProtoFieldName ? field.name : field.jsonName));
    // A field named `__proto__` would set the object's prototype instead of a key: such messages
    // get objects without one (JSON.stringify writes them alike).
    const unusualKeys = keys.includes("__proto__");
    // Compiled at the first use, once every converter of a recursive type is registered.
    let converters: FieldConverter[] | undefined;
    const registry = this.options.registry;
    const toJsonOptions = this.toJsonOptions;
    let build: ((message: Record<string, unknown>) => JsonObject) | undefined;
    const convert = (message: Message): JsonValue => {
      if (build === undefined) {
        converters = fields.map((field) => this.field(field, selection?.get(field) ?? undefined));
        build = unusualKeys ? objectBuilder(keys, converters) : literalBuilder(keys, converters);
      }
      const json = build(message as unknown as Record<string, unknown>);
      if (registry !== undefined && message.$unknown !== undefined && message.$unknown.length > 0) {
        addExtensions(json, desc, message, toJsonOptions);
      }
      return json;
    };
    if (shared) this.converters.set(desc, convert);
    return convert;
  }

  /** The converter of a field's value inside its message: `null` when a field with presence is unset. */
  field(field: DescField, selection?: FieldSelection): FieldConverter {
    const local = field.localName;
    switch (field.fieldKind) {
      case "list": {
        const item = this.elementConverter(field, selection);
        return (m) => {
          const items = m[local] as unknown[];
          // Pushed, not preallocated: JSON.stringify takes its fast path for packed arrays only.
          const json: JsonValue[] = [];
          for (let i = 0; i < items.length; i++) json.push(item(items[i]));
          return json;
        };
      }
      case "map": {
        const entry = this.elementConverter(field, selection);
        return (m) => {
          const record = m[local] as Record<string, unknown>;
          // Without a prototype: a map key may be "__proto__".
          const json: JsonObject = Object.create(null);
          for (const key of Object.keys(record)) json[key] = entry(record[key]);
          return json;
        };
      }
      default: {
        const convert = this.singularConverter(field, selection);
        if (field.oneof !== undefined) {
          const oneof = field.oneof.localName;
          return (m) => {
            const selected = m[oneof] as { case: string | undefined; value?: unknown };
            return selected.case === local ? convert(selected.value) : null;
          };
        }
        if (field.presence !== FeatureSet_FieldPresence.IMPLICIT) {
          return (m) => {
            const value = m[local];
            // Fields with explicit presence have their defaults on the prototype (proto2).
            return value !== undefined && Object.hasOwn(m, local) ? convert(value) : null;
          };
        }
        return (m) => convert(m[local]);
      }
    }
  }

  private singularConverter(
    field: DescField & { fieldKind: "scalar" | "enum" | "message" },
    selection?: FieldSelection,
  ): ValueConverter {
    switch (field.fieldKind) {
      case "scalar":
        return scalarConverter(field.scalar);
      case "enum":
        return this.enumConverter(field.enum);
      case "message":
        // protobuf-es keeps a singular wrapper field outside a oneof as its bare value (an
        // `Int32Value` field is a number), which is also the wrapper's JSON.
        if (field.oneof === undefined && isWrapperDesc(field.message)) {
          return scalarConverter((field.message.fields[0] as DescField & { scalar: ScalarType }).scalar);
        }
        return this.messageValueConverter(field.message, field, selection);
    }
  }

  /** The converter of a list's items or a map's values: a scalar, an enum or a message each. */
  private elementConverter(
    field: DescField & { fieldKind: "list" | "map" },
    selection?: FieldSelection,
  ): ValueConverter {
    if (field.scalar !== undefined) return scalarConverter(field.scalar);
    if (field.enum !== undefined) return this.enumConverter(field.enum);
    return this.messageValueConverter(field.message as DescMessage, field, selection);
  }

  private messageValueConverter(
    desc: DescMessage,
    field: DescField,
    selection?: FieldSelection,
  ): ValueConverter {
    // protobuf-es keeps a google.protobuf.Struct field (but inside a Value) as its JSON object.
    if (desc.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value") {
      return (value) => value as JsonValue;
    }
    let convert: ((message: Message) => JsonValue) | undefined;
    return (value) => {
      convert ??= this.message(desc, undefined, selection);
      return convert(value as Message);
    };
  }

  private enumConverter(desc: DescEnum): ValueConverter {
    if (desc.typeName === "google.protobuf.NullValue") return () => null;
    if (this.options.enumAsInteger) return (value) => value as number;
    const names = new Map(desc.values.map((value) => [value.number, value.name]));
    // A number the enum does not know is written as the number, as the JSON mapping says.
    return (value) => names.get(value as number) ?? (value as number);
  }

  /** Well-known types with a JSON form of their own (Timestamp, Duration, Struct, wrappers, ...). */
  private customJson(desc: DescMessage): (message: Message) => JsonValue {
    const options = this.toJsonOptions;
    const general = (message: Message): JsonValue => toJson(desc, message, options);
    if (desc.typeName === "google.protobuf.Timestamp") {
      return (message) => timestampJson(message as unknown as TimestampLike) ?? general(message);
    }
    return general;
  }
}

function scalarConverter(scalar: ScalarType): ValueConverter {
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (value) => {
        const n = value as number;
        if (Number.isFinite(n)) return n;
        return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
      };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      // 64-bit integers are strings in JSON, so that JavaScript readers lose no digits.
      return (value) => String(value);
    case ScalarType.BYTES:
      return (value) => base64Encode(value as Uint8Array);
    default:
      // string, bool, 32-bit integers: as they are.
      return (value) => value as JsonValue;
  }
}

/** Adds the extensions of a message found in the registry, as `"[name]": value`. */
function addExtensions(
  json: JsonObject,
  desc: DescMessage,
  message: Message,
  options: Partial<JsonWriteOptions>,
): void {
  const written = toJson(desc, message, options) as JsonObject;
  for (const key of Object.keys(written)) {
    if (key.startsWith("[")) json[key] = written[key] as JsonValue;
  }
}
