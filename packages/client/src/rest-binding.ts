import {
  create,
  type DescField,
  type DescMessage,
  type DescMethod,
  fromJson,
  getOption,
  hasOption,
  type JsonObject,
  type JsonValue,
  type Message,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, http } from "@folio/googleapis";
import {
  fillPathTemplate,
  parsePathTemplate,
  pathTemplatePattern,
  type TemplatePart,
} from "./path-template.js";

/** How a method is called over REST, from its `google.api.http` rule (the rule itself, not its additional bindings). */
export interface RestBinding {
  /** `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, or a custom pattern's kind. */
  readonly verb: string;
  /** The path template, e.g. `/api/v1/folders/{id}`. */
  readonly template: readonly TemplatePart[];
  /** The request fields each variable of the template binds, outermost first. */
  readonly pathFields: readonly (readonly DescField[])[];
  /** `*`: every field the path leaves is the body; a field: that field is; undefined: no body. */
  readonly body: "*" | DescField | undefined;
  /** The response field the body holds (`response_body`), or undefined for the whole response. */
  readonly responseBody: DescField | undefined;
  /** Matches the paths of this binding. */
  readonly pathPattern: RegExp;
}

const bindings = new WeakMap<DescMethod, RestBinding>();

/** Whether a method can be called over REST: it has a `google.api.http` rule. */
export function hasRestBinding(method: DescMethod): boolean {
  return hasOption(method, http);
}

/** A method's REST binding, read from its descriptor once. Throws when it has none. */
export function restBinding(method: DescMethod): RestBinding {
  let binding = bindings.get(method);
  if (binding === undefined) {
    binding = readBinding(method);
    bindings.set(method, binding);
  }
  return binding;
}

function readBinding(method: DescMethod): RestBinding {
  const name = `${method.parent.typeName}.${method.name}`;
  if (!hasOption(method, http)) throw new Error(`${name} has no google.api.http rule: it has no REST route`);
  const rule = getOption(method, http);
  let verb: string;
  let path: string;
  switch (rule.pattern.case) {
    case undefined:
      throw new Error(`the google.api.http rule of ${name} has no pattern`);
    case "custom":
      verb = rule.pattern.value.kind;
      path = rule.pattern.value.path;
      break;
    default:
      verb = rule.pattern.case.toUpperCase();
      path = rule.pattern.value;
  }
  const template = parsePathTemplate(path);
  const pathFields = template.flatMap((part) =>
    part.kind === "variable" ? [fieldPath(method.input, part.fieldPath, name)] : [],
  );
  const body =
    rule.body === "" ? undefined : rule.body === "*" ? "*" : topField(method.input, rule.body, name);
  const responseBody =
    rule.responseBody === "" ? undefined : topField(method.output, rule.responseBody, name);
  return { verb, template, pathFields, body, responseBody, pathPattern: pathTemplatePattern(template) };
}

function topField(message: DescMessage | undefined, name: string, method: string): DescField {
  const field = message?.fields.find((f) => f.name === name);
  if (field === undefined) {
    throw new Error(
      `the google.api.http rule of ${method} names no field "${name}" of ${message?.typeName ?? "a message"}`,
    );
  }
  return field;
}

/** The fields along a dotted path of a path variable, outermost first. */
function fieldPath(message: DescMessage, names: readonly string[], method: string): DescField[] {
  const fields: DescField[] = [];
  let current: DescMessage | undefined = message;
  for (const name of names) {
    const field = topField(current, name, method);
    fields.push(field);
    current = field.fieldKind === "message" ? field.message : undefined;
  }
  return fields;
}

/** The parts of an HTTP request: the path (with its query string) and the JSON body, if any. */
export interface RestRequestParts {
  readonly path: string;
  readonly body: string | undefined;
}

/**
 * The HTTP request of a call, as the server's transcoder reads it: path variables from their
 * fields, then the body (`*`: every other field; a field: that one), and every field left as a
 * query parameter named in proto3 JSON, a repeated field as repeated parameters. Fields at their
 * default value are left out, as in the JSON mapping. Throws an `invalid_argument` error, before
 * anything is sent, for a path field left empty or a field a URL cannot carry (a map, a message
 * with a JSON form of its own).
 */
export function restRequest(method: DescMethod, binding: RestBinding, message: Message): RestRequestParts {
  const json = toJson(method.input, message) as JsonObject;
  const path = fillPathTemplate(binding.template, (index) =>
    takePathValue(json, binding.pathFields[index] as readonly DescField[]),
  );
  let body: JsonValue | undefined;
  if (binding.body === "*") {
    body = json;
  } else if (binding.body !== undefined) {
    body = json[binding.body.jsonName];
    delete json[binding.body.jsonName];
  }
  const query = binding.body === "*" ? "" : queryString(method.input, json);
  return {
    path: query === "" ? path : `${path}?${query}`,
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

/** The value of a path variable's field, taken out of the JSON so it is sent once. */
function takePathValue(json: JsonObject, fields: readonly DescField[]): string {
  let holder: JsonObject | undefined = json;
  for (const field of fields.slice(0, -1)) {
    const next: JsonValue | undefined = holder?.[field.jsonName];
    holder = typeof next === "object" && next !== null && !Array.isArray(next) ? next : undefined;
  }
  const leaf = fields[fields.length - 1] as DescField;
  const value = holder?.[leaf.jsonName];
  if (holder !== undefined) delete holder[leaf.jsonName];
  const name = fields.map((f) => f.jsonName).join(".");
  if (value === undefined || value === null || value === "")
    throw refusal(name, "must be set: it is part of the request path");
  if (typeof value === "object") throw refusal(name, "cannot be part of a request path");
  return String(value);
}

/** The query string of the fields left, in proto3 JSON names; nested messages as `a.b`. */
function queryString(message: DescMessage, json: JsonObject): string {
  const params = new URLSearchParams();
  const visit = (desc: DescMessage, object: JsonObject, prefix: string) => {
    for (const field of desc.fields) {
      const value = object[field.jsonName];
      if (value === undefined || value === null) continue;
      const name = `${prefix}${field.jsonName}`;
      if (field.fieldKind === "message" && isObject(value) && !hasCustomJsonRepresentation(field.message)) {
        visit(field.message, value, `${name}.`);
      } else if (field.fieldKind === "map" || isObject(value)) {
        throw refusal(name, "cannot be sent in a URL's query string");
      } else if (Array.isArray(value)) {
        for (const item of value) {
          if (typeof item === "object" && item !== null)
            throw refusal(name, "cannot be sent in a URL's query string");
          params.append(name, String(item));
        }
      } else {
        params.append(name, String(value));
      }
    }
  };
  visit(message, json, "");
  return params.toString();
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An `invalid_argument` error naming the field, as the server names a field it refuses. */
function refusal(field: string, description: string): ConnectError {
  const detail = create(BadRequestSchema, { fieldViolations: [{ field, description }] });
  return new ConnectError(`${field} ${description}`, Code.InvalidArgument, undefined, [
    { desc: BadRequestSchema, value: detail },
  ]);
}

/**
 * The response message of a REST answer: its JSON body (wrapped into `response_body`'s field
 * when the rule names one), and the next page's token from the `Link: <...>; rel="next"` header
 * when the response has a `next_page_token` the body left empty (REST answers send it there).
 */
export function restResponse(
  method: DescMethod,
  binding: RestBinding,
  body: JsonValue,
  nextPageToken: string,
): Message {
  const json = binding.responseBody === undefined ? body : { [binding.responseBody.jsonName]: body };
  const message = fromJson(method.output, json, { ignoreUnknownFields: true });
  const next = method.output.fields.find(
    (f) => f.name === "next_page_token" && f.fieldKind === "scalar" && f.scalar === ScalarType.STRING,
  );
  if (next !== undefined && nextPageToken !== "") {
    const response = reflect(method.output, message);
    if (response.get(next) === "") response.set(next, nextPageToken);
  }
  return message;
}
