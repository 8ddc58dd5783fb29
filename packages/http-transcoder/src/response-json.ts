import {
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonWriteOptions,
  type Message,
  type Registry,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { FeatureSet_FieldPresence, hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";

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

/** How a {@link MessageJsonWriter} writes names and enums, and resolves `Any` and extensions. @private */
export interface ResponseJsonOptions {
  readonly useProtoFieldName: boolean;
  readonly enumAsInteger: boolean;
  readonly registry: Registry | undefined;
}

type ValueWriter = (value: unknown) => string;

// Written by hand rather than with `toJson` + `JSON.stringify`: that builds a tree of JSON values
// for every response only to turn it into text, which was a large part of the CPU a big list
// response cost. Each message type's writer is compiled once, from its descriptor.

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
): MessageJsonWriter {
  return new JsonWriterCompiler(options).message(desc, omit);
}

/**
 * Compiles the writer of one field's value, as written inside its message (`null` when a field
 * with explicit presence is not set): for a route whose `response_body` is that field.
 *
 * @private
 */
export function createFieldJsonWriter(field: DescField, options: ResponseJsonOptions): MessageJsonWriter {
  const write = new JsonWriterCompiler(options).field(field);
  return (message) => write(message as unknown as Record<string, unknown>);
}

class JsonWriterCompiler {
  /** Writers by message type, so that recursive types compile once. */
  private readonly writers = new Map<DescMessage, MessageJsonWriter>();
  private readonly toJsonOptions: Partial<JsonWriteOptions>;

  constructor(private readonly options: ResponseJsonOptions) {
    this.toJsonOptions = {
      alwaysEmitImplicit: true,
      useProtoFieldName: options.useProtoFieldName,
      enumAsInteger: options.enumAsInteger,
      registry: options.registry,
    };
  }

  message(desc: DescMessage, omit?: DescField): MessageJsonWriter {
    if (omit === undefined) {
      const known = this.writers.get(desc);
      if (known !== undefined) return known;
    }
    if (hasCustomJsonRepresentation(desc)) {
      const custom = this.customJson(desc);
      if (omit === undefined) this.writers.set(desc, custom);
      return custom;
    }
    const parts: Array<(message: Record<string, unknown>) => string> = [];
    // Looked up at the first write, once every writer of a recursive type is registered.
    let compiled: Array<(message: Record<string, unknown>) => string> | undefined;
    const fields = desc.fields.filter((field) => field !== omit);
    const registry = this.options.registry;
    const toJsonOptions = this.toJsonOptions;
    const writer: MessageJsonWriter = (message) => {
      if (compiled === undefined) {
        compiled = parts;
        for (const field of fields) {
          const key = JSON.stringify(this.options.useProtoFieldName ? field.name : field.jsonName);
          const write = this.field(field);
          compiled.push((m) => `${key}:${write(m)}`);
        }
      }
      const record = message as unknown as Record<string, unknown>;
      let json = "{";
      for (let i = 0; i < compiled.length; i++) {
        if (i > 0) json += ",";
        json += (compiled[i] as (m: Record<string, unknown>) => string)(record);
      }
      if (registry !== undefined && message.$unknown !== undefined && message.$unknown.length > 0) {
        json += extensionsJson(desc, message, toJsonOptions, compiled.length > 0);
      }
      return `${json}}`;
    };
    if (omit === undefined) this.writers.set(desc, writer);
    return writer;
  }

  /** The writer of a field's value inside its message: `null` when a field with presence is unset. */
  field(field: DescField): (message: Record<string, unknown>) => string {
    const local = field.localName;
    switch (field.fieldKind) {
      case "list": {
        const item = this.itemWriter(field);
        return (m) => {
          const items = m[local] as unknown[];
          let json = "[";
          for (let i = 0; i < items.length; i++) {
            if (i > 0) json += ",";
            json += item(items[i]);
          }
          return `${json}]`;
        };
      }
      case "map": {
        const entry = this.mapValueWriter(field);
        return (m) => {
          const record = m[local] as Record<string, unknown>;
          let json = "{";
          let first = true;
          for (const key of Object.keys(record)) {
            if (!first) json += ",";
            first = false;
            json += `${JSON.stringify(key)}:${entry(record[key])}`;
          }
          return `${json}}`;
        };
      }
      default: {
        const write = this.singularWriter(field);
        if (field.oneof !== undefined) {
          const oneof = field.oneof.localName;
          return (m) => {
            const selected = m[oneof] as { case: string | undefined; value?: unknown };
            return selected.case === local ? write(selected.value) : "null";
          };
        }
        if (field.presence !== FeatureSet_FieldPresence.IMPLICIT) {
          return (m) => {
            const value = m[local];
            // Fields with explicit presence have their defaults on the prototype (proto2).
            return value !== undefined && Object.hasOwn(m, local) ? write(value) : "null";
          };
        }
        return (m) => write(m[local]);
      }
    }
  }

  private singularWriter(field: DescField & { fieldKind: "scalar" | "enum" | "message" }): ValueWriter {
    switch (field.fieldKind) {
      case "scalar":
        return scalarWriter(field.scalar);
      case "enum":
        return this.enumWriter(field.enum);
      case "message":
        // protobuf-es keeps a singular wrapper field outside a oneof as its bare value (an
        // `Int32Value` field is a number), which is also the wrapper's JSON.
        if (field.oneof === undefined && isWrapperDesc(field.message)) {
          return scalarWriter((field.message.fields[0] as DescField & { scalar: ScalarType }).scalar);
        }
        return this.messageValueWriter(field.message, field);
    }
  }

  private itemWriter(field: DescField & { fieldKind: "list" }): ValueWriter {
    switch (field.listKind) {
      case "scalar":
        return scalarWriter(field.scalar);
      case "enum":
        return this.enumWriter(field.enum);
      case "message":
        return this.messageValueWriter(field.message, field);
    }
  }

  private mapValueWriter(field: DescField & { fieldKind: "map" }): ValueWriter {
    switch (field.mapKind) {
      case "scalar":
        return scalarWriter(field.scalar);
      case "enum":
        return this.enumWriter(field.enum);
      case "message":
        return this.messageValueWriter(field.message, field);
    }
  }

  private messageValueWriter(desc: DescMessage, field: DescField): ValueWriter {
    // protobuf-es keeps a google.protobuf.Struct field (but inside a Value) as its JSON object.
    if (desc.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value") {
      return (value) => JSON.stringify(value);
    }
    let write: MessageJsonWriter | undefined;
    return (value) => {
      write ??= this.message(desc);
      return write(value as Message);
    };
  }

  private enumWriter(desc: DescEnum): ValueWriter {
    if (desc.typeName === "google.protobuf.NullValue") return () => "null";
    if (this.options.enumAsInteger) return (value) => String(value);
    const names = new Map(desc.values.map((value) => [value.number, JSON.stringify(value.name)]));
    // A number the enum does not know is written as the number, as the JSON mapping says.
    return (value) => names.get(value as number) ?? String(value);
  }

  /** Well-known types with a JSON form of their own (Timestamp, Duration, Struct, wrappers, ...). */
  private customJson(desc: DescMessage): MessageJsonWriter {
    const options = this.toJsonOptions;
    const general: MessageJsonWriter = (message) => JSON.stringify(toJson(desc, message, options));
    if (desc.typeName === "google.protobuf.Timestamp") {
      return (message) => timestampJson(message as unknown as TimestampLike) ?? general(message);
    }
    return general;
  }
}

function scalarWriter(scalar: ScalarType): ValueWriter {
  switch (scalar) {
    case ScalarType.STRING:
      return (value) => JSON.stringify(value);
    case ScalarType.BOOL:
      return (value) => (value ? "true" : "false");
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (value) => {
        const n = value as number;
        if (Number.isFinite(n)) return String(n);
        return Number.isNaN(n) ? '"NaN"' : n > 0 ? '"Infinity"' : '"-Infinity"';
      };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      // 64-bit integers are strings in JSON, so that JavaScript readers lose no digits.
      return (value) => `"${String(value)}"`;
    case ScalarType.BYTES:
      return (value) => `"${base64Encode(value as Uint8Array)}"`;
    default:
      return (value) => String(value);
  }
}

interface TimestampLike {
  readonly seconds: bigint;
  readonly nanos: number;
}

const TIMESTAMP_MIN_MS = Date.UTC(1, 0, 1) - 1;
const TIMESTAMP_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A Timestamp as RFC 3339 with 0, 3, 6 or 9 fractional digits, as the JSON mapping writes it;
 * undefined for one out of its range, which the general path refuses with its own error.
 */
function timestampJson(timestamp: TimestampLike): string | undefined {
  const ms = Number(timestamp.seconds) * 1000;
  const nanos = timestamp.nanos;
  if (!(ms > TIMESTAMP_MIN_MS && ms <= TIMESTAMP_MAX_MS) || nanos < 0 || nanos > 999_999_999) {
    return undefined;
  }
  const iso = new Date(ms).toISOString(); // ...T12:34:56.000Z
  const seconds = iso.slice(0, iso.length - 5);
  if (nanos === 0) return `"${seconds}Z"`;
  const digits = String(nanos + 1_000_000_000).slice(1);
  const fraction = digits.endsWith("000000")
    ? digits.slice(0, 3)
    : digits.endsWith("000")
      ? digits.slice(0, 6)
      : digits;
  return `"${seconds}.${fraction}Z"`;
}

/** The extensions of a message found in the registry, as `,"[name]":value` pairs. */
function extensionsJson(
  desc: DescMessage,
  message: Message,
  options: Partial<JsonWriteOptions>,
  afterFields: boolean,
): string {
  const json = toJson(desc, message, options) as JsonObject;
  let text = "";
  for (const key of Object.keys(json)) {
    if (!key.startsWith("[")) continue;
    text += `${afterFields || text !== "" ? "," : ""}${JSON.stringify(key)}:${JSON.stringify(json[key])}`;
  }
  return text;
}
