import type { DescField, DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import type { ConnectError } from "@connectrpc/connect";
import { fieldByName } from "./field-names.js";
import { invalidArgument } from "./invalid-argument.js";

/**
 * The error for a body that protobuf-es cannot read, naming the field at fault: the first key of
 * the JSON that the message has no field for, or else the field protobuf-es names (a `FieldError`,
 * its error's cause), found where it sits in the JSON. protobuf-es reads the keys in the order
 * this walks them and stops at the first problem, so the key found is the one it refused. This
 * runs only on a failure.
 *
 * @private
 */
export function bodyError(
  input: DescMessage,
  body: JsonValue,
  bodyField: DescField | undefined,
  error: unknown,
): ConnectError {
  const cause = error instanceof Error ? error.cause : undefined;
  const badField = isFieldError(cause) ? cause.field() : undefined;
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
  const located = root === undefined ? undefined : locate(root, body, badField, "");
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

/**
 * Whether an error is protobuf-es's `FieldError`, which names the field (or oneof) at fault. Its
 * own `isFieldError` is not exported: the same test of its shape.
 */
function isFieldError(value: unknown): value is { field(): DescField | { jsonName?: string } } {
  return value instanceof Error && "field" in value && typeof value.field === "function";
}

/** Finds the first unknown key, or the first key of `target`, in a JSON message. */
function locate(
  message: DescMessage,
  json: JsonValue,
  target: unknown,
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
      return { path, unknown: true };
    }
    if (field === target) {
      return { path, unknown: false };
    }
    if (field.fieldKind === "message") {
      const found = locate(field.message, value, target, path);
      if (found !== undefined) return found;
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = locate(field.message, value[i] as JsonValue, target, `${path}[${i}]`);
        if (found !== undefined) return found;
      }
    } else if (
      field.fieldKind === "map" &&
      field.mapKind === "message" &&
      typeof value === "object" &&
      value
    ) {
      for (const [mapKey, item] of Object.entries(value as JsonObject)) {
        const found = locate(field.message, item, target, `${path}[${JSON.stringify(mapKey)}]`);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}
