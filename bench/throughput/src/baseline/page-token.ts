import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Where a page starts: after the project with this name and id. */
export interface PageCursor {
  readonly name: string;
  readonly id: string;
}

/** Signs and reads page tokens bound to a caller's org and filters. */
export interface PageTokens {
  encode(cursor: PageCursor, binding: string): string;
  /** The cursor, or undefined when the token is malformed, altered or bound to something else. */
  decode(token: string, binding: string): PageCursor | undefined;
}

const VERSION = "1";

/**
 * Page tokens as Folio makes them (same format, same cost): `1.<base64url JSON cursor>.<HMAC-SHA256
 * over the version, the binding and the cursor>`. The binding is not in the token, so a token of
 * another org or filter fails the MAC.
 */
export function createPageTokens(secret: string | undefined): PageTokens {
  const key = secret !== undefined ? Buffer.from(secret, "utf8") : randomBytes(32);
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
        // refused below
      }
      return undefined;
    },
  };
}
