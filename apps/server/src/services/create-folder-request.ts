import { isUuid } from "@folio/auth";
import { type FieldViolation, invalidArgument } from "@folio/googleapis";
import { type CreateFolderRequest, FolderService } from "@folio/proto";
import { requestHeaderRule } from "./request-header-rules.js";

/**
 * The header that carries an idempotency key (draft-ietf-httpapi-idempotency-key-header), and its
 * rule, which the `request_id` field (AIP-155) follows too: declared in the proto.
 */
const IDEMPOTENCY_KEY = requestHeaderRule(FolderService.method.createFolder, "Idempotency-Key");

/** A CreateFolder request that passed validation, in the form it is stored. */
export interface ValidCreateFolder {
  readonly name: string;
  /** What uniqueness among siblings compares: the name case-folded. */
  readonly nameKey: string;
  readonly parentId: string | null;
  readonly color: string | null;
  readonly idempotencyKey: string | undefined;
}

const MAX_NAME_LENGTH = 255;
const CONTROL = /\p{Cc}/u;
/**
 * Characters that change how a name reads without being seen, so that two names look alike:
 * bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), zero-width
 * characters (U+200B..U+200D, U+2060..U+2064, U+FEFF) and noncharacters (U+FDD0..U+FDEF and the
 * last two code points of every plane). A zero-width joiner inside an emoji sequence (👩‍💻) is
 * the one exception: it is visible as the emoji it forms.
 */
const INVISIBLE =
  /[\p{Bidi_Control}\u200B\u200C\u2060-\u2064\uFEFF\p{Noncharacter_Code_Point}]|(?<!\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/u;
const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * Validates and normalises a CreateFolder request: the one declaration of its rules, run for
 * every protocol (REST arrives here through the transcoder). Throws `invalid_argument` with a
 * google.rpc.BadRequest listing every field at fault.
 */
export function validateCreateFolder(request: CreateFolderRequest, headers: Headers): ValidCreateFolder {
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
    if (isUuid(request.parentId)) parentId = request.parentId.toLowerCase();
    else violations.push({ field: "parentId", description: "must be a UUID" });
  }

  let color: string | null = null;
  if (request.color !== undefined) {
    if (COLOR.test(request.color)) color = expandColor(request.color.toLowerCase());
    else violations.push({ field: "color", description: "must be #rgb or #rrggbb" });
  }

  const header = headers.get(IDEMPOTENCY_KEY.header) ?? undefined;
  const idempotencyKey = request.requestId ?? header;
  for (const [field, key] of [
    ["requestId", request.requestId],
    [IDEMPOTENCY_KEY.name, header],
  ] as const) {
    const broken = key === undefined ? undefined : IDEMPOTENCY_KEY.broken(key);
    if (broken !== undefined) violations.push({ field, description: broken });
  }
  if (request.requestId !== undefined && header !== undefined && request.requestId !== header) {
    violations.push({ field: "requestId", description: `differs from the ${IDEMPOTENCY_KEY.name} header` });
  }

  if (violations.length > 0) {
    throw invalidArgument(violations);
  }
  return { name, nameKey: foldCase(name), parentId, color, idempotencyKey };
}

/**
 * The key two names are compared by. Upper- then lower-casing approximates Unicode full case
 * folding with what JavaScript has built in ("STRASSE" and "straße" compare equal, as do final
 * and medial sigma); NFC again because case mappings may decompose.
 */
export function foldCase(name: string): string {
  return name.toUpperCase().toLowerCase().normalize("NFC");
}

function expandColor(color: string): string {
  if (color.length === 7) return color;
  const [, r, g, b] = color;
  return `#${r}${r}${g}${g}${b}${b}`;
}
