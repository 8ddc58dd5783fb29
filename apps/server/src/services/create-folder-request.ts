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
/**
 * The longest trimmed name, in UTF-16 code units, that can still be at most 255 characters in NFC.
 * NFC shortens a name at most fourfold (the longest canonical decomposition of one code point,
 * U+1F82's, is four), and a code point is at most two code units: so a trimmed name longer than
 * this is too long whatever NFC makes of it, and is refused without being normalised.
 */
const MAX_RAW_NAME_UNITS = MAX_NAME_LENGTH * 4 * 2;
/**
 * The Stream-Safe Text Format's bound (UAX #15): at most 30 combining marks in a row. NFC puts a
 * run of combining marks in canonical order by insertion, in time that grows with the square of
 * the run's length; bounded runs keep it linear in the name. Every non-starter (canonical
 * combining class above 0) is a mark (\p{M}), so no run of non-starters escapes this.
 */
const MAX_COMBINING_RUN = 30;
const COMBINING_RUN = new RegExp(`\\p{M}{${MAX_COMBINING_RUN + 1}}`, "u");
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
 * - the name has no run of more than 30 combining marks (checked before NFC, which is quadratic
 *   in a run's length): RE2's `\p{M}{31}` would hold, but costs RE2's pure-JavaScript engine a
 *   fifth of a second of CPU on a name near the body limit;
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
  violations.push(...nameViolations(request.name));
  const header = headers.get(IDEMPOTENCY_KEY.header) ?? undefined;
  const broken = header === undefined ? undefined : IDEMPOTENCY_KEY.broken(header);
  if (broken !== undefined) violations.push({ field: IDEMPOTENCY_KEY.name, description: broken });
  if (request.requestId !== undefined && header !== undefined && request.requestId !== header) {
    violations.push({ field: "requestId", description: `differs from the ${IDEMPOTENCY_KEY.name} header` });
  }
  return violations;
});

/**
 * What is wrong with a name, checked so that the cost stays linear in its length: a trimmed name
 * too long for any NFC to bring within the limit is refused for that alone; the runs of combining
 * marks are checked before NFC, and a name with one too long is not normalised (its length then
 * goes unchecked: it is refused already). The characters the other rules look for are neither
 * made nor removed by NFC, so those rules read the trimmed name as sent.
 */
function nameViolations(sent: string): FieldViolation[] {
  const trimmed = sent.trim();
  const tooLong = { field: "name", description: `must be at most ${MAX_NAME_LENGTH} characters` };
  if (trimmed.length > MAX_RAW_NAME_UNITS) return [tooLong];
  const violations: FieldViolation[] = [];
  if (COMBINING_RUN.test(trimmed)) {
    violations.push({
      field: "name",
      description: `must not contain more than ${MAX_COMBINING_RUN} combining marks in a row`,
    });
  } else if (codePoints(normaliseName(trimmed)) > MAX_NAME_LENGTH) {
    violations.push(tooLong);
  }
  if (WHITE_SPACE_CONTROL.test(trimmed)) {
    violations.push({ field: "name", description: "must not contain control characters" });
  }
  const invisible = INVISIBLE.exec(trimmed)?.[0];
  if (invisible !== undefined) {
    const codePoint = `U+${(invisible.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
    violations.push({
      field: "name",
      description: `must not contain invisible characters, bidirectional controls or noncharacters (${codePoint})`,
    });
  }
  return violations;
}

/** The number of code points in `text`. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

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

/**
 * A name as stored and counted: in NFC, without white space around it. Called only on a name
 * {@link nameViolations} bounded (trimmed length, combining-mark runs), so NFC stays linear.
 */
function normaliseName(name: string): string {
  return name.trim().normalize("NFC").trim();
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
