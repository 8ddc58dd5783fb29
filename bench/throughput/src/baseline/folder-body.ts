import { ApiError, invalidArgument } from "./api-error.ts";

/** A CreateFolder request as its JSON body sets it (proto3: `name` "" when unset). */
export interface CreateFolderBody {
  name: string;
  parentId: string | undefined;
  color: string | undefined;
  requestId: string | undefined;
}

type Field = keyof CreateFolderBody;

/** Fields by JSON name and by proto name, as the protobuf JSON mapping accepts both. */
const FIELDS = new Map<string, Field>([
  ["name", "name"],
  ["parentId", "parentId"],
  ["parent_id", "parentId"],
  ["color", "color"],
  ["requestId", "requestId"],
  ["request_id", "requestId"],
]);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes the body of `POST /api/v1/folders` as Folio's transcoder does: JSON only (415 for another
 * Content-Type), UTF-8, an object whose keys are fields of CreateFolderRequest with string (or
 * null) values; an empty body is an empty request. Decoding comes before authentication.
 */
export function decodeCreateFolderBody(bytes: Uint8Array, contentType: string | undefined): CreateFolderBody {
  if (contentType !== undefined && !isJsonContentType(contentType)) throw unsupportedMediaType(contentType);
  const request: CreateFolderBody = {
    name: "",
    parentId: undefined,
    color: undefined,
    requestId: undefined,
  };
  if (bytes.byteLength === 0) return request;
  if (contentType === undefined) throw unsupportedMediaType(undefined);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError("invalid_argument", "request body: not valid UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ApiError("invalid_argument", `request body: malformed JSON (${(error as Error).message})`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw invalidArgument(
      [{ field: "", description: "expected a JSON object" }],
      "request body: expected a JSON object",
    );
  }
  // The key that first set each field: a field set twice (by both its names) is named by it.
  const seen = new Map<Field, string>();
  for (const [key, value] of Object.entries(json)) {
    const field = FIELDS.get(key);
    if (field === undefined) {
      throw invalidArgument(
        [{ field: key, description: "unknown field" }],
        `request body: unknown field "${key}"`,
      );
    }
    const first = seen.get(field);
    if (first !== undefined) throw badValue(first, "set multiple times");
    seen.set(field, key);
    if (value === null) continue;
    if (typeof value !== "string") throw badValue(key, `expected string, got ${formatValue(value)}`);
    request[field] = value;
  }
  return request;
}

/** `application/json`, optionally with `charset=utf-8`. */
function isJsonContentType(contentType: string): boolean {
  const semicolon = contentType.indexOf(";");
  const type = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (type !== "application/json") return false;
  if (semicolon < 0) return true;
  for (const parameter of contentType.slice(semicolon + 1).split(";")) {
    const [name = "", value = ""] = parameter.split("=", 2).map((s) => s.trim().toLowerCase());
    if (name === "" && value === "") continue;
    if (name !== "charset" || value.replace(/^"(.*)"$/, "$1") !== "utf-8") return false;
  }
  return true;
}

function unsupportedMediaType(contentType: string | undefined): ApiError {
  return new ApiError(
    "invalid_argument",
    contentType === undefined
      ? "request body without Content-Type; send application/json"
      : `unsupported Content-Type "${contentType}"; send application/json`,
    [],
    {},
    415,
  );
}

function badValue(field: string, reason: string): ApiError {
  return invalidArgument(
    [{ field, description: reason }],
    `request body: invalid value for "${field}": ${reason}`,
  );
}

/** How protobuf-es names a JSON value in its errors. */
function formatValue(value: unknown): string {
  if (Array.isArray(value)) return `Array(${value.length})`;
  return typeof value === "object" ? "object" : String(value);
}
