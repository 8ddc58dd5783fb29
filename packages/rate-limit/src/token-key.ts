import { createHash } from "node:crypto";

/** An optional `Bearer` scheme (case-insensitive, RFC 9110 section 11.1) and the spaces around it. */
const BEARER_PREFIX = /^\s*bearer +/i;

/**
 * The rate-limit key of an access token: the SHA-256 (hex) of the token alone. Hashed so that
 * neither Redis nor a heap dump holds usable credentials; the `Bearer` scheme and surrounding
 * spaces are stripped first so that `bearer  x` and `Bearer x` cannot count as two tokens.
 */
export function tokenKey(authorization: string): string {
  const token = authorization.replace(BEARER_PREFIX, "").trim();
  return createHash("sha256").update(token, "utf8").digest("hex");
}
