import type { FieldViolation } from "@folio/googleapis";
import { type CreateFolderRequest, FolderService } from "@folio/proto";
import { requestHeaderRule } from "./request-header-rules.js";
import { serviceRules } from "./request-validation.js";

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
/** The control characters (Cc) that are also white space: allowed only around a name. */
const WHITE_SPACE_CONTROL = /[\t\n\v\f\r]/;
/**
 * Characters that change how a name reads without being seen, so that two names look alike:
 * bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), zero-width
 * characters (U+200B..U+200D, U+2060..U+2064, U+FEFF) and noncharacters (U+FDD0..U+FDEF and the
 * last two code points of every plane). A zero-width joiner inside an emoji sequence (👩‍💻) is
 * the one exception: it is visible as the emoji it forms.
 */
const INVISIBLE =
  /[\p{Bidi_Control}\u200B\u200C\u2060-\u2064\uFEFF\p{Noncharacter_Code_Point}]|(?<!\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/u;

/**
 * The rules of a CreateFolder request that its `buf.validate` rules (proto/folio/v1/folder.proto,
 * checked by protovalidate before these) cannot say, each for the reason given:
 * - the name is at most 255 characters once trimmed and in NFC: the rules see the name as sent,
 *   and CEL can neither normalise nor trim the way the service does;
 * - the name holds none of the five control characters that are white space (tab, LF, VT, FF,
 *   CR) but around it, where they are trimmed: the proto's rule refuses every other control
 *   character wherever it is, and saying "only around the name" in RE2 takes a pattern that
 *   costs a fifth of a second of CPU on a name near the body limit;
 * - the name holds no invisible characters but a zero-width joiner inside an emoji sequence: RE2,
 *   the rules' regular expressions, has neither the Bidi_Control, Noncharacter_Code_Point nor
 *   Extended_Pictographic property, nor the look-behind the exception needs;
 * - the `Idempotency-Key` header keeps the rule of `(folio.v1.request_headers)` (the same as
 *   `request_id`'s), and equals `request_id` when both are sent: a header is not a field of the
 *   message, which is all protovalidate sees.
 * (Names unique among siblings, compared case-folded, is the database's: see {@link foldCase}.)
 */
export const createFolderRules = serviceRules(FolderService.method.createFolder, (request, headers) => {
  const violations: FieldViolation[] = [];
  const name = normaliseName(request.name);
  if ([...name].length > MAX_NAME_LENGTH) {
    violations.push({ field: "name", description: `must be at most ${MAX_NAME_LENGTH} characters` });
  }
  if (WHITE_SPACE_CONTROL.test(name)) {
    violations.push({ field: "name", description: "must not contain control characters" });
  }
  const invisible = INVISIBLE.exec(name)?.[0];
  if (invisible !== undefined) {
    const codePoint = `U+${(invisible.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    violations.push({
      field: "name",
      description: `must not contain invisible characters, bidirectional controls or noncharacters (${codePoint})`,
    });
  }
  const header = headers.get(IDEMPOTENCY_KEY.header) ?? undefined;
  const broken = header === undefined ? undefined : IDEMPOTENCY_KEY.broken(header);
  if (broken !== undefined) violations.push({ field: IDEMPOTENCY_KEY.name, description: broken });
  if (request.requestId !== undefined && header !== undefined && request.requestId !== header) {
    violations.push({ field: "requestId", description: `differs from the ${IDEMPOTENCY_KEY.name} header` });
  }
  return violations;
});

/**
 * A CreateFolder request that passed validation (its `buf.validate` rules and
 * {@link createFolderRules}), in the form it is stored: the name trimmed and in NFC, the parent's
 * UUID and the colour in lower case, the colour as `#rrggbb`, the idempotency key from the field
 * or the header.
 */
export function normaliseCreateFolder(request: CreateFolderRequest, headers: Headers): ValidCreateFolder {
  const name = normaliseName(request.name);
  return {
    name,
    nameKey: foldCase(name),
    parentId: request.parentId?.toLowerCase() ?? null,
    color: request.color === undefined ? null : expandColor(request.color.toLowerCase()),
    idempotencyKey: request.requestId ?? headers.get(IDEMPOTENCY_KEY.header) ?? undefined,
  };
}

/** A name as stored and counted: in NFC, without white space around it. */
function normaliseName(name: string): string {
  return name.normalize("NFC").trim();
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
