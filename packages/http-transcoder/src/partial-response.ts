import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import type { ConnectError } from "@connectrpc/connect";
import { fieldByName } from "./field-names.js";
import type { HttpRoute } from "./http-route.js";
import { fieldsParameter } from "./http-semantics.js";
import { invalidArgument } from "./invalid-argument.js";
import type { FieldSelection } from "./response-json.js";

/**
 * Parses a `fields` value, Google's field selector syntax (`projects(id,name),nextPageToken`,
 * `a/b` for `a(b)`), into the fields of `desc` it selects, by JSON or proto name. An unknown field,
 * a selection inside a field that has none, or a malformed value is 400 naming the path.
 *
 * @private
 */
export function parseFieldSelection(text: string, desc: DescMessage): FieldSelection {
  const parser = { text, at: 0 };
  const selection = parseList(parser, desc, "", false);
  if (parser.at !== text.length) throw fieldsError(text, `unexpected "${text[parser.at]}" at ${parser.at}`);
  return selection;
}

interface Parser {
  readonly text: string;
  at: number;
}

/** A comma-separated list of fields (or, after a "/", a single one). */
function parseList(parser: Parser, desc: DescMessage, prefix: string, single: boolean): FieldSelection {
  const selection = new Map<DescField, FieldSelection | null>();
  for (;;) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(parser.text.slice(parser.at))?.[0];
    if (name === undefined) throw fieldsError(parser.text, `expected a field name at ${parser.at}`);
    parser.at += name.length;
    const path = prefix === "" ? name : `${prefix}.${name}`;
    const field = fieldByName(desc, name);
    if (field === undefined) throw fieldsError(parser.text, `no field "${path}" in the answer`);
    const next = parser.text[parser.at];
    let inner: FieldSelection | null = null;
    if (next === "(" || next === "/") {
      const message = selectableMessage(field);
      if (message === undefined) throw fieldsError(parser.text, `"${path}" has no fields to select`);
      parser.at += 1;
      inner = parseList(parser, message, path, next === "/");
      if (next === "(") {
        if (parser.text[parser.at] !== ")") throw fieldsError(parser.text, `expected ")" at ${parser.at}`);
        parser.at += 1;
      }
    }
    selection.set(field, merge(selection.get(field), inner));
    if (single || parser.text[parser.at] !== ",") return selection;
    parser.at += 1;
  }
}

/** The message type a field's selection applies to: its own, or its items' or values'. */
function selectableMessage(field: DescField): DescMessage | undefined {
  const message =
    field.fieldKind === "message"
      ? field.message
      : field.fieldKind === "list" || field.fieldKind === "map"
        ? field.message
        : undefined;
  return message === undefined || hasCustomJsonRepresentation(message) ? undefined : message;
}

/** Two selections of one field: the whole field if either is. */
function merge(a: FieldSelection | null | undefined, b: FieldSelection | null): FieldSelection | null {
  if (a === undefined) return b;
  if (a === null || b === null) return null;
  const merged = new Map(a);
  for (const [field, inner] of b) merged.set(field, merge(merged.get(field), inner));
  return merged;
}

function fieldsError(text: string, reason: string): ConnectError {
  return invalidArgument(
    [{ field: fieldsParameter, description: reason }],
    `query parameter "fields" ("${text}"): ${reason}`,
  );
}

/**
 * Takes the `fields` parameter out of a query string, so that the request message never sees it;
 * its value, percent-decoded, or undefined.
 *
 * @private
 */
export function takeFieldsParameter(query: string): { query: string; fields: string | undefined } {
  if (!query.includes("fields=")) return { query, fields: undefined };
  let fields: string | undefined;
  const rest: string[] = [];
  for (const pair of query.split("&")) {
    if (!pair.startsWith("fields=")) rest.push(pair);
    else {
      try {
        fields = decodeURIComponent(pair.slice(7).replace(/\+/g, " "));
      } catch {
        throw fieldsError(pair.slice(7), "not percent-encoded UTF-8");
      }
    }
  }
  return { query: rest.join("&"), fields };
}

/**
 * The writers of a route's partial answers, by `fields` value: compiled at the first request with
 * the value, and kept (up to 64 values a route; others are compiled for their request).
 *
 * @private
 */
export function createPartialResponseWriters<W>(
  route: HttpRoute,
  create: (selection: FieldSelection) => W,
): (fields: string) => W {
  const cache = new Map<string, W>();
  return (fields) => {
    const known = cache.get(fields);
    if (known !== undefined) return known;
    const writer = create(parseFieldSelection(fields, route.method.output));
    if (cache.size < 64) cache.set(fields, writer);
    return writer;
  };
}
