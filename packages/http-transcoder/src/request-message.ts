import {
  create,
  type DescField,
  type DescMessage,
  fromJson,
  type JsonObject,
  type JsonReadOptions,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import type { ConnectError } from "@connectrpc/connect";
import { type FieldViolation, invalidArgument } from "@folio/googleapis";
import { type FieldValueParser, fieldValueParser, setFieldPathValue } from "./field-value.js";
import type { HttpRoute } from "./http-route.js";

/**
 * Builds the request message of a route from the three places http.proto maps fields to: the
 * path, the body and the query string. Throws a ConnectError (`invalid_argument`, with a
 * `google.rpc.BadRequest` detail) naming what is wrong.
 *
 * @private
 */
export type RequestMessageReader = (
  /** The request body as parsed JSON, `undefined` for none. */
  body: JsonValue | undefined,
  /** The raw path segments, the custom verb cut off. */
  segments: readonly string[],
  /** The query string, without "?"; "" for none. */
  query: string,
) => Message;

interface PathSetter {
  readonly fields: readonly DescField[];
  readonly name: string;
  readonly parse: FieldValueParser;
  readonly start: number;
  /** The end of the capture, or -1 for "to the end of the path" (`**`). */
  readonly end: number;
  readonly multiSegment: boolean;
}

/**
 * Compiles the {@link RequestMessageReader} of a route: everything that depends on the route alone
 * (field paths, value parsers, which fields the path and body bind) is resolved here, once.
 *
 * @private
 */
export function createRequestMessageReader(
  route: HttpRoute,
  jsonOptions: Partial<JsonReadOptions>,
): RequestMessageReader {
  const input = route.method.input;
  const readOptions: Partial<JsonReadOptions> = { ...jsonOptions, ignoreUnknownFields: false };
  const templateLength = route.template.segments.length;
  const endsDeep = route.template.segments[templateLength - 1]?.kind === "deep-wildcard";
  const pathSetters: PathSetter[] = route.pathVariables.map((variable) => ({
    fields: variable.fields,
    name: jsonPath(variable.fields),
    // Path variables are validated by collectHttpRoutes: a parser exists.
    parse: fieldValueParser(variable.fields[variable.fields.length - 1] as DescField) as FieldValueParser,
    start: variable.start,
    end: endsDeep && variable.end === templateLength ? -1 : variable.end,
    multiSegment: variable.multiSegment,
  }));
  // http.proto: "Any fields in the request message which are not bound by the path template
  // automatically become HTTP query parameters if there is no HTTP request body." A query
  // parameter for a field the path or the body binds would be a second, conflicting source.
  const pathBound = route.pathVariables.map((variable) => variable.fields);
  // The oneof members the path sets, whatever the request: a query parameter for another member of
  // one of those oneofs conflicts with it.
  const pathOneofs = new Map<string, SetOneofMember>();
  for (const variable of route.pathVariables) {
    for (const member of oneofMembers(variable.fields)) {
      pathOneofs.set(member.oneof, { ...member, name: jsonPath(variable.fields) });
    }
  }
  const bodyField = route.bodyField;
  // Likewise the body field, when a body is sent.
  const bodyOneof = bodyField === undefined ? undefined : oneofMembers([bodyField])[0];
  const bodyBindsAll = route.body === "*";
  const bodyKey = bodyField === undefined ? undefined : bodyField.jsonName;
  const queryTargets = new Map<string, QueryTarget>();

  const resolveQueryTarget = (name: string): QueryTarget => {
    let target = queryTargets.get(name);
    if (target === undefined) {
      target = resolveQueryName(input, name, pathBound, bodyField, bodyBindsAll);
      // Names are chosen by clients: remember a bounded number of them.
      if (queryTargets.size < 1000) {
        queryTargets.set(name, target);
      }
    }
    return target;
  };

  return (body, segments, query) => {
    let message: Message;
    if (body === undefined) {
      message = create(input);
    } else {
      const json = bodyKey === undefined ? body : { [bodyKey]: body };
      try {
        message = fromJson(input, json, readOptions);
      } catch (error) {
        throw bodyError(input, body, bodyField, error);
      }
    }
    let reflected: ReflectMessage | undefined;
    const violations: FieldViolation[] = [];

    // Path variables last set their fields, over the body: with `body: "book"` and a path
    // `{book.name=...}`, the name in the path is the one that counts.
    for (const setter of pathSetters) {
      const raw =
        setter.end === setter.start + 1
          ? (segments[setter.start] as string)
          : segments.slice(setter.start, setter.end === -1 ? undefined : setter.end).join("/");
      try {
        const text = setter.multiSegment ? decodeMultiSegment(raw) : decodeURIComponent(raw);
        reflected ??= reflect(input, message);
        setFieldPathValue(reflected, setter.fields, setter.parse(text));
      } catch (error) {
        violations.push({ field: setter.name, description: describe(error, "malformed percent-encoding") });
      }
    }

    if (query !== "") {
      const seen = new Set<string>();
      // http.proto leaves a oneof set twice to the transcoder; a JSON body with two members of
      // a oneof is refused, and so is a query string that sets two (the last would win silently).
      const oneofs = new Map(pathOneofs);
      if (bodyOneof !== undefined && body !== undefined) {
        oneofs.set(bodyOneof.oneof, { ...bodyOneof, name: (bodyField as DescField).jsonName });
      }
      for (const [name, value] of new URLSearchParams(query)) {
        const target = resolveQueryTarget(name);
        if (target.kind === "invalid") {
          violations.push({ field: name, description: target.description });
          continue;
        }
        if (!target.repeated) {
          if (seen.has(target.key)) {
            violations.push({
              field: name,
              description: "set more than once, but the field is not repeated",
            });
            continue;
          }
          seen.add(target.key);
        }
        const conflict = target.oneofs
          .map((member) => ({ member, set: oneofs.get(member.oneof) }))
          .find(({ member, set }) => set !== undefined && set.field !== member.field);
        if (conflict?.set !== undefined) {
          violations.push({
            field: name,
            description: `at most one field of oneof "${conflict.member.oneofName}" may be set, and "${conflict.set.name}" is set too`,
          });
          continue;
        }
        for (const member of target.oneofs) {
          if (!oneofs.has(member.oneof)) oneofs.set(member.oneof, { ...member, name });
        }
        try {
          reflected ??= reflect(input, message);
          setFieldPathValue(reflected, target.fields, target.parse(value));
        } catch (error) {
          violations.push({ field: name, description: describe(error, "invalid value") });
        }
      }
    }

    if (violations.length > 0) {
      throw invalidArgument(violations);
    }
    return message;
  };
}

type QueryTarget =
  | {
      readonly kind: "field";
      readonly fields: readonly DescField[];
      readonly parse: FieldValueParser;
      readonly repeated: boolean;
      /** The field path in proto names, so that `page_size` and `pageSize` count as one. */
      readonly key: string;
      /** The oneofs the fields along the path are members of. */
      readonly oneofs: readonly OneofMember[];
    }
  | { readonly kind: "invalid"; readonly description: string };

const fieldsByName = new WeakMap<DescMessage, Map<string, DescField>>();

/** A message's fields by proto name and by JSON name, as the JSON mapping accepts both. */
function fieldByName(message: DescMessage, name: string): DescField | undefined {
  let fields = fieldsByName.get(message);
  if (fields === undefined) {
    fields = new Map();
    for (const field of message.fields) {
      fields.set(field.name, field);
      fields.set(field.jsonName, field);
    }
    fieldsByName.set(message, fields);
  }
  return fields.get(name);
}

function resolveQueryName(
  input: DescMessage,
  name: string,
  pathBound: readonly (readonly DescField[])[],
  bodyField: DescField | undefined,
  bodyBindsAll: boolean,
): QueryTarget {
  const fields: DescField[] = [];
  let message = input;
  const parts = name.split(".");
  for (let i = 0; i < parts.length; i++) {
    const field = fieldByName(message, parts[i] as string);
    if (field === undefined) {
      return {
        kind: "invalid",
        description: `unknown query parameter: ${message.typeName} has no field "${parts[i]}"`,
      };
    }
    fields.push(field);
    if (i < parts.length - 1) {
      if (field.fieldKind !== "message" || hasCustomJsonRepresentation(field.message)) {
        return {
          kind: "invalid",
          description: `unknown query parameter: "${parts.slice(0, i + 1).join(".")}" has no fields`,
        };
      }
      message = field.message;
    }
  }
  if (bodyBindsAll) {
    return { kind: "invalid", description: 'not allowed: the request body holds every field (body: "*")' };
  }
  if (bodyField !== undefined && fields[0] === bodyField) {
    return { kind: "invalid", description: "not allowed: the field is bound by the request body" };
  }
  if (pathBound.some((bound) => overlaps(bound, fields))) {
    return { kind: "invalid", description: "not allowed: the field is bound by the path" };
  }
  const leaf = fields[fields.length - 1] as DescField;
  const parse = fieldValueParser(leaf);
  if (parse === undefined) {
    return {
      kind: "invalid",
      description:
        leaf.fieldKind === "map"
          ? "a map field cannot be set from the query string"
          : "a message field cannot be set from the query string; set its fields with dots",
    };
  }
  return {
    kind: "field",
    fields,
    parse,
    repeated: leaf.fieldKind === "list",
    key: fields.map((f) => f.name).join("."),
    oneofs: oneofMembers(fields),
  };
}

/** A field of a field path that is a member of a oneof. */
interface OneofMember {
  /** The oneof, by its place: the field path to its message and its name (`filter#place`). */
  readonly oneof: string;
  readonly oneofName: string;
  /** The member, by its field path in proto names. */
  readonly field: string;
}

/** A oneof member a request sets, named as the client wrote it (a query parameter, a path variable). */
interface SetOneofMember extends OneofMember {
  readonly name: string;
}

/** The oneof members along a field path (proto3 `optional` fields are in no oneof). */
function oneofMembers(fields: readonly DescField[]): OneofMember[] {
  const members: OneofMember[] = [];
  fields.forEach((field, i) => {
    if (field.oneof === undefined) return;
    const parent = fields
      .slice(0, i)
      .map((f) => f.name)
      .join(".");
    members.push({
      oneof: `${parent}#${field.oneof.name}`,
      oneofName: field.oneof.name,
      field: fields
        .slice(0, i + 1)
        .map((f) => f.name)
        .join("."),
    });
  });
  return members;
}

/** Whether one field path is a prefix of the other. */
function overlaps(a: readonly DescField[], b: readonly DescField[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

/**
 * Percent-decodes the value of a multi-segment variable, except `%2F`: http.proto, "the server
 * side does the reverse decoding, except "%2F" and "%2f" are left as-is", so that an encoded
 * slash stays distinguishable from a separator.
 */
function decodeMultiSegment(raw: string): string {
  if (!raw.includes("%")) {
    return raw;
  }
  return raw
    .split(/(%2[Ff])/)
    .map((part, index) => (index % 2 === 1 ? part : decodeURIComponent(part)))
    .join("");
}

function jsonPath(fields: readonly DescField[]): string {
  return fields.map((f) => f.jsonName).join(".");
}

function describe(error: unknown, fallback: string): string {
  return error instanceof URIError ? fallback : error instanceof Error ? error.message : fallback;
}

/**
 * The error for a body that protobuf-es cannot read, naming the field at fault. protobuf-es says
 * which key is unknown or which field has a bad value, but not where it sits in the JSON: the
 * JSON is searched for it (this happens only on a failure).
 */
function bodyError(
  input: DescMessage,
  body: JsonValue,
  bodyField: DescField | undefined,
  error: unknown,
): ConnectError {
  const cause = error instanceof Error ? error.cause : undefined;
  const badField = isFieldErrorLike(cause) ? cause.field() : undefined;
  const unknownKey = error instanceof Error ? /key "(.*)" is unknown/.exec(error.message)?.[1] : undefined;
  let root: DescMessage | undefined = input;
  if (bodyField !== undefined) {
    root = bodyField.fieldKind === "message" ? bodyField.message : undefined;
  }
  if (bodyField === undefined && (typeof body !== "object" || body === null || Array.isArray(body))) {
    return invalidArgument(
      [{ field: "", description: "expected a JSON object" }],
      "request body: expected a JSON object",
    );
  }
  const located = root === undefined ? undefined : locate(root, body, badField, unknownKey, "");
  if (located?.unknown) {
    return invalidArgument(
      [{ field: located.path, description: "unknown field" }],
      `request body: unknown field "${located.path}"`,
    );
  }
  const reason = cause instanceof Error ? cause.message : error instanceof Error ? error.message : "invalid";
  const path =
    located?.path ?? (badField !== undefined && "jsonName" in badField ? (badField.jsonName ?? "") : "");
  return invalidArgument(
    [{ field: path, description: reason }],
    path === "" ? `request body: ${reason}` : `request body: invalid value for "${path}": ${reason}`,
  );
}

function isFieldErrorLike(value: unknown): value is { field(): DescField | { jsonName?: string } } {
  return value instanceof Error && "field" in value && typeof value.field === "function";
}

/** Finds the first unknown key, or the first key of `target`, in a JSON message. */
function locate(
  message: DescMessage,
  json: JsonValue,
  target: unknown,
  unknownKey: string | undefined,
  prefix: string,
): { path: string; unknown: boolean } | undefined {
  if (
    typeof json !== "object" ||
    json === null ||
    Array.isArray(json) ||
    hasCustomJsonRepresentation(message)
  ) {
    return undefined;
  }
  for (const [key, value] of Object.entries(json as JsonObject)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const field = fieldByName(message, key);
    if (field === undefined) {
      if (unknownKey === undefined || unknownKey === key) {
        return { path, unknown: true };
      }
      continue;
    }
    if (field === target) {
      return { path, unknown: false };
    }
    if (field.fieldKind === "message") {
      const found = locate(field.message, value, target, unknownKey, path);
      if (found !== undefined) return found;
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = locate(field.message, value[i] as JsonValue, target, unknownKey, `${path}[${i}]`);
        if (found !== undefined) return found;
      }
    } else if (
      field.fieldKind === "map" &&
      field.mapKind === "message" &&
      typeof value === "object" &&
      value
    ) {
      for (const [mapKey, item] of Object.entries(value as JsonObject)) {
        const found = locate(field.message, item, target, unknownKey, `${path}[${JSON.stringify(mapKey)}]`);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}
