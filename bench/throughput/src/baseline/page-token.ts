import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomFillSync,
} from "node:crypto";

/** Where a page starts: after the project with this name and id. */
export interface PageCursor {
  readonly name: string;
  readonly id: string;
}

/** Seals and reads page tokens bound to a caller's org and filters. */
export interface PageTokens {
  encode(cursor: PageCursor, binding: string): string;
  /** The cursor, or undefined when the token is malformed, altered or bound to something else. */
  decode(token: string, binding: string): PageCursor | undefined;
}

const VERSION = "2";
const KEY_INFO = "folio/page-token/v2/aes-256-gcm";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const PAD_BYTES = 32;

/**
 * Page tokens as Folio makes them (same format, same cost, so each reads the other's):
 * `2.<base64url of a random nonce, the cursor's JSON padded to 32 bytes and encrypted with
 * AES-256-GCM under a key HKDF-derived from the secret, and the tag>`, the binding (org and
 * filters) the associated data.
 */
export function createPageTokens(secret: string | undefined): PageTokens {
  const key =
    secret === undefined
      ? createSecretKey(randomBytes(32))
      : createSecretKey(Buffer.from(hkdfSync("sha256", Buffer.from(secret), Buffer.alloc(0), KEY_INFO, 32)));
  const nonces = Buffer.alloc(NONCE_BYTES * 256);
  let offset = nonces.length;
  const nextNonce = () => {
    if (offset === nonces.length) {
      randomFillSync(nonces);
      offset = 0;
    }
    offset += NONCE_BYTES;
    return nonces.subarray(offset - NONCE_BYTES, offset);
  };
  return {
    encode(cursor, binding) {
      const nonce = nextNonce();
      const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(binding));
      const json = Buffer.from(JSON.stringify([cursor.name, cursor.id]));
      const padded = Buffer.concat([
        json,
        Buffer.alloc(Math.ceil(json.length / PAD_BYTES) * PAD_BYTES - json.length, " "),
      ]);
      const sealed = cipher.update(padded);
      return `${VERSION}.${Buffer.concat([nonce, sealed, cipher.final(), cipher.getAuthTag()]).toString("base64url")}`;
    },
    decode(token, binding) {
      const [version, encoded, ...rest] = token.split(".");
      if (version !== VERSION || encoded === undefined || rest.length > 0) return undefined;
      const body = Buffer.from(encoded, "base64url");
      if (body.length < NONCE_BYTES + TAG_BYTES || body.toString("base64url") !== encoded) return undefined;
      return open(key, body, binding);
    },
  };
}

function open(key: KeyObject, body: Buffer, binding: string): PageCursor | undefined {
  const decipher = createDecipheriv("aes-256-gcm", key, body.subarray(0, NONCE_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(binding));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    const plaintext = Buffer.concat([
      decipher.update(body.subarray(NONCE_BYTES, body.length - TAG_BYTES)),
      decipher.final(),
    ]);
    const value: unknown = JSON.parse(plaintext.toString("utf8"));
    if (Array.isArray(value) && value.length === 2) {
      const [name, id] = value as unknown[];
      if (typeof name === "string" && typeof id === "string") return { name, id };
    }
  } catch {
    // refused below
  }
  return undefined;
}
