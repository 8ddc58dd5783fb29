import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from "node:crypto";

/** Where a page starts: after the project with this name and id (keyset paging). */
export interface PageCursor {
  readonly name: string;
  readonly id: string;
}

/** Signs and reads page tokens. */
export interface PageTokens {
  /** A token for the page after `cursor`, valid only within `binding` (org and filters). */
  encode(cursor: PageCursor, binding: string): string;
  /** The cursor of a token, or undefined when it is malformed, altered or bound to something else. */
  decode(token: string, binding: string): PageCursor | undefined;
}

const VERSION = "1";

/**
 * Page tokens: the cursor in base64url JSON plus an HMAC-SHA256 over the cursor and the binding.
 * The binding (the caller's org and the query's filters) is not in the token, so a token from
 * another org or another filter fails the MAC like a forged one. `secret` must be the same on
 * every instance serving the API; without one, a random key is used and tokens only work on the
 * process that issued them.
 */
export function createPageTokens(secret: string | undefined = undefined): PageTokens {
  // A KeyObject made once: given bytes, createHmac makes one per call, which cost 7x the MAC itself.
  const key = createSecretKey(secret !== undefined ? Buffer.from(secret, "utf8") : randomBytes(32));
  const mac = (payload: string, binding: string) =>
    createHmac("sha256", key).update(`${VERSION}\n${binding}\n${payload}`).digest();
  return {
    encode(cursor, binding) {
      const payload = Buffer.from(JSON.stringify([cursor.name, cursor.id])).toString("base64url");
      return `${VERSION}.${payload}.${mac(payload, binding).toString("base64url")}`;
    },
    decode(token, binding) {
      const [version, payload, signature, ...rest] = token.split(".");
      if (version !== VERSION || payload === undefined || signature === undefined || rest.length > 0) {
        return undefined;
      }
      const expected = mac(payload, binding);
      const given = Buffer.from(signature, "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
        if (Array.isArray(value) && value.length === 2) {
          const [name, id] = value as unknown[];
          if (typeof name === "string" && typeof id === "string") return { name, id };
        }
      } catch {
        // A valid MAC over a payload that is not ours cannot happen without the key; still refuse.
      }
      return undefined;
    },
  };
}
