import { type FieldViolation, invalidArgument } from "./api-error.ts";
import type { CreateFolderBody } from "./folder-body.ts";

/** A CreateFolder request that passed validation, in the form it is stored. */
export interface ValidFolder {
  readonly name: string;
  /** What sibling uniqueness compares: the name case-folded. */
  readonly nameKey: string;
  readonly parentId: string | null;
  readonly color: string | null;
  readonly idempotencyKey: string | undefined;
}

// The rules of apps/server/src/services/create-folder-request.ts, which the server package does
// not export: the same expressions, the same order, the same messages.
const MAX_NAME_LENGTH = 255;
const MAX_KEY_LENGTH = 255;
const CONTROL = /\p{Cc}/u;
const INVISIBLE =
  /[\p{Bidi_Control}\u200B\u200C\u2060-\u2064\uFEFF\p{Noncharacter_Code_Point}]|(?<!\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/u;
const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates and normalises a CreateFolder request: name trimmed and in NFC, 1 to 255 code points,
 * no control or invisible characters, no `/` or `\`, not `.` or `..`; `parentId` a UUID; `color`
 * `#rgb` or `#rrggbb`, stored as lower-case `#rrggbb`; idempotency keys of visible ASCII. Throws
 * `invalid_argument` naming every field at fault.
 */
export function validateFolder(
  request: CreateFolderBody,
  idempotencyHeader: string | undefined,
): ValidFolder {
  const violations: FieldViolation[] = [];
  const name = request.name.normalize("NFC").trim();
  const length = [...name].length;
  if (length === 0) {
    violations.push({ field: "name", description: "must not be empty" });
  } else if (length > MAX_NAME_LENGTH) {
    violations.push({ field: "name", description: `must be at most ${MAX_NAME_LENGTH} characters` });
  } else if (CONTROL.test(name)) {
    violations.push({ field: "name", description: "must not contain control characters" });
  } else if (INVISIBLE.test(name)) {
    const found = INVISIBLE.exec(name)?.[0] ?? "";
    const codePoint = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    violations.push({
      field: "name",
      description: `must not contain invisible characters, bidirectional controls or noncharacters (${codePoint})`,
    });
  } else if (name.includes("/") || name.includes("\\")) {
    violations.push({ field: "name", description: 'must not contain "/" or "\\"' });
  } else if (name === "." || name === "..") {
    violations.push({ field: "name", description: 'must not be "." or ".."' });
  }

  let parentId: string | null = null;
  if (request.parentId !== undefined) {
    if (UUID.test(request.parentId)) parentId = request.parentId.toLowerCase();
    else violations.push({ field: "parentId", description: "must be a UUID" });
  }

  let color: string | null = null;
  if (request.color !== undefined) {
    if (COLOR.test(request.color)) color = expandColor(request.color.toLowerCase());
    else violations.push({ field: "color", description: "must be #rgb or #rrggbb" });
  }

  for (const [field, key] of [
    ["requestId", request.requestId],
    ["Idempotency-Key", idempotencyHeader],
  ] as const) {
    if (key !== undefined && (key.length > MAX_KEY_LENGTH || !VISIBLE_ASCII.test(key))) {
      violations.push({ field, description: `must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters` });
    }
  }
  if (
    request.requestId !== undefined &&
    idempotencyHeader !== undefined &&
    request.requestId !== idempotencyHeader
  ) {
    violations.push({ field: "requestId", description: "differs from the Idempotency-Key header" });
  }

  if (violations.length > 0) throw invalidArgument(violations);
  return {
    name,
    nameKey: foldCase(name),
    parentId,
    color,
    idempotencyKey: request.requestId ?? idempotencyHeader,
  };
}

/**
 * The key sibling names are compared by, exactly as Folio computes `name_key`: upper- then
 * lower-cased (Unicode case mapping: "STRASSE" = "straße"), then NFC again.
 */
export function foldCase(name: string): string {
  return name.toUpperCase().toLowerCase().normalize("NFC");
}

function expandColor(color: string): string {
  if (color.length === 7) return color;
  const [, r, g, b] = color;
  return `#${r}${r}${g}${g}${b}${b}`;
}
