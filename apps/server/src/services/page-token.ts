import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomFillSync,
} from "node:crypto";

/**
 * Where a page starts (keyset paging): the values of the listing's sort key, in its order, of the
 * last entry of the previous page; `["Harbour", "5d1c..."]` for a listing by name, then id.
 */
export type PageCursor = readonly (string | number)[];

/** Seals and reads page tokens. */
export interface PageTokens {
  /** A token for the page after `cursor`, valid only within `binding` (listing, org and filters). */
  encode(cursor: PageCursor, binding: string): string;
  /** The cursor of a token, or undefined when it is malformed, altered or bound to something else. */
  decode(token: string, binding: string): PageCursor | undefined;
}

const VERSION = "2";
// The HKDF label: a key derived for page tokens is of no use for anything else, nor for another version.
const KEY_INFO = "folio/page-token/v2/aes-256-gcm";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// The cursor is padded to a multiple of this, so a token's length tells little of the name's.
const PAD_BYTES = 32;

/**
 * Page tokens: `2.` and, in base64url, a random nonce, the cursor encrypted with AES-256-GCM, and
 * its tag. The binding (the listing, the caller's org and the query's filters: see
 * keyset-listing.ts) is the associated data, not in the token, so a token from another listing,
 * org or filter fails like a forged one.
 *
 * `secrets` are the keys' sources, current first: tokens are sealed with the first and opened with
 * any, so a new secret can be put first while instances that still seal with the old one run. They
 * must be the same on every instance serving the API; with none, a random key is used and tokens
 * only work on the process that issued them.
 */
export function createPageTokens(secrets: readonly string[] = []): PageTokens {
  // KeyObjects made once: given bytes, each cipher would import the key again on every call.
  const keys = secrets.length > 0 ? secrets.map(deriveKey) : [createSecretKey(randomBytes(32))];
  const sealingKey = keys[0] as KeyObject;
  const nextNonce = noncePool();
  return {
    encode(cursor, binding) {
      const nonce = nextNonce();
      const cipher = createCipheriv("aes-256-gcm", sealingKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(binding, "utf8"));
      const sealed = cipher.update(padded(JSON.stringify(cursor)));
      const body = Buffer.concat([nonce, sealed, cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${body.toString("base64url")}`;
    },
    decode(token, binding) {
      const [version, encoded, ...rest] = token.split(".");
      if (version !== VERSION || encoded === undefined || rest.length > 0) return undefined;
      const body = Buffer.from(encoded, "base64url");
      // Node's decoder skips stray characters and unused bits: only the one spelling of the bytes is ours.
      if (body.length < NONCE_BYTES + TAG_BYTES || body.toString("base64url") !== encoded) return undefined;
      for (const key of keys) {
        const plaintext = open(key, body, binding);
        if (plaintext !== undefined) return parseCursor(plaintext);
      }
      return undefined;
    },
  };
}

/**
 * Random nonces, drawn from a buffer filled 256 at a time: a randomBytes call per token cost half
 * as much as the encryption. Each is used once; the caller copies it before the next refill.
 */
function noncePool(): () => Buffer {
  const pool = Buffer.alloc(NONCE_BYTES * 256);
  let offset = pool.length;
  return () => {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    offset += NONCE_BYTES;
    return pool.subarray(offset - NONCE_BYTES, offset);
  };
}

/** The AES-256 key of one secret. */
function deriveKey(secret: string): KeyObject {
  return createSecretKey(
    Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), KEY_INFO, 32)),
  );
}

/** The plaintext of a token's body under `key`, or undefined when the tag does not verify. */
function open(key: KeyObject, body: Buffer, binding: string): Buffer | undefined {
  const nonce = body.subarray(0, NONCE_BYTES);
  const sealed = body.subarray(NONCE_BYTES, body.length - TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(binding, "utf8"));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  const plaintext = decipher.update(sealed);
  try {
    return Buffer.concat([plaintext, decipher.final()]);
  } catch {
    return undefined;
  }
}

/** `json` in UTF-8, followed by spaces (which JSON.parse ignores) up to a multiple of PAD_BYTES. */
function padded(json: string): Buffer {
  const bytes = Buffer.from(json, "utf8");
  const length = Math.ceil(bytes.length / PAD_BYTES) * PAD_BYTES;
  return Buffer.concat([bytes, Buffer.alloc(length - bytes.length, " ")]);
}

/** The cursor an authenticated plaintext holds. */
function parseCursor(plaintext: Buffer): PageCursor | undefined {
  try {
    const value: unknown = JSON.parse(plaintext.toString("utf8"));
    if (Array.isArray(value) && value.every((item) => typeof item === "string" || typeof item === "number")) {
      return value as PageCursor;
    }
  } catch {
    // An authentic plaintext that is not ours cannot happen without the key; still refuse.
  }
  return undefined;
}
