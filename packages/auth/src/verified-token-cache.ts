import { hash } from "node:crypto";
import type { AccessTokenVerifier } from "./caller.js";
import type { TrackedKeySet, VerificationKey } from "./key-set.js";

/** Verified tokens remembered by default: a few MB of heap (under 1 KB an entry), whatever the tokens' size. */
export const DEFAULT_TOKEN_CACHE_MAX_ENTRIES = 10_000;

/** What a full verification learnt of a token: its caller, and what decides how long that holds. */
export interface VerifiedToken {
  readonly caller: Awaited<ReturnType<AccessTokenVerifier>>;
  /** The token's `exp`, in seconds since the epoch. */
  readonly exp: number;
  /** The key that verified the signature, and the `kid` the token named. */
  readonly key: VerificationKey;
  readonly kid: string | undefined;
}

/** Options of {@link createVerifiedTokenCache}. */
export interface VerifiedTokenCacheOptions {
  /** Verifies a token in full (signature, claims); throws when it is refused. */
  readonly verify: (token: string) => Promise<VerifiedToken>;
  /** The key set `verify` uses: an entry is served only while the key that verified it is in it. */
  readonly keys: TrackedKeySet;
  /** Entries kept at most; the least recently used goes first (default 10,000). */
  readonly maxEntries?: number;
}

interface Entry {
  readonly caller: Awaited<ReturnType<AccessTokenVerifier>>;
  /** `exp` in milliseconds: the entry is served only before it, without clock tolerance. */
  readonly expiresAtMs: number;
  /** Identity of the verifying key (see TrackedKeySet.identify). */
  readonly keyIdentity: string;
}

/**
 * Wraps a full verification in a bounded LRU cache of tokens that passed it, so a client reusing
 * its token is verified (ES256, RSA) once, not on every request.
 *
 * A hit is served only while the token has not expired and the key that verified it is still in
 * the key set; with a remote JWKS, only while that set is younger than its max age. Everything
 * else verification checks is either fixed per verifier (issuer, audience, algorithms, claims) or
 * stays true once true (`nbf`, `iat` not in the future). Scopes are checked per request by the
 * interceptor, hit or not. One cache serves one verifier, whose rules it assumes.
 *
 * Refusals are not cached: a refused token may become valid (a key the issuer publishes later, an
 * `nbf` reached), and caching garbage would let a client evict the tokens worth keeping.
 */
export function createVerifiedTokenCache(options: VerifiedTokenCacheOptions): AccessTokenVerifier {
  const maxEntries = options.maxEntries ?? DEFAULT_TOKEN_CACHE_MAX_ENTRIES;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new Error(`the verified-token cache needs a positive whole number of entries (got ${maxEntries})`);
  }
  const { verify, keys } = options;
  // Insertion order is recency order: a hit moves its entry to the end, eviction takes the first.
  const entries = new Map<string, Entry>();

  return async (token) => {
    keys.maintain();
    // Keyed by the token's hash, not the token: an entry costs the same for a 200-byte and a
    // 16-KB token, and a heap dump holds no usable credentials (as Caller.tokenId).
    const id = hash("sha256", token, "base64url");
    const entry = entries.get(id);
    if (entry !== undefined) {
      if (Date.now() < entry.expiresAtMs) {
        const current = await keys.current();
        if (current?.has(entry.keyIdentity)) {
          entries.delete(id);
          entries.set(id, entry);
          return entry.caller;
        }
        // Key removed from the set: verify again, which refuses the token. A set that is only
        // stale (current undefined) is refetched by that verification, and the entry rewritten.
      }
      entries.delete(id);
    }

    const verified = await verify(token);
    const expiresAtMs = verified.exp * 1000;
    // A token accepted within the clock tolerance after its exp is not cached: it is past exp.
    if (Date.now() < expiresAtMs) {
      const keyIdentity = await keys.identify(verified.key, verified.kid);
      if (keyIdentity !== undefined) {
        entries.delete(id);
        entries.set(id, { caller: verified.caller, expiresAtMs, keyIdentity });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
    }
    return verified.caller;
  };
}
