import type { JWTVerifyGetKey } from "jose";
import type { VerificationKey } from "./key-identity.js";
import type { KeySetListener } from "./key-set-loading.js";

/** How a key set is opened. */
export interface KeySetOptions {
  /** With `jwksUrl`: minimum time between two fetches caused by unknown `kid`s (default 30 s). */
  readonly cooldownMs?: number;
  /** With `jwksUrl`: how long a fetched JWKS is used before it is fetched again (default 10 min). */
  readonly maxAgeMs?: number;
  /** With `jwksFile`: how often the file is read again for changed keys (default 5 s). */
  readonly pollMs?: number;
  /** Told of failures to load the keys, outages, recoveries and changes of usability. */
  readonly onEvent?: KeySetListener;
  /** Stops the set's background work (polling a file, retrying a URL) once aborted. */
  readonly signal?: AbortSignal;
}

/**
 * The keys tokens are verified with, and what the verified-token cache must know of them: which
 * key verified a token, and whether that key is still in the set.
 */
export interface TrackedKeySet {
  /** jose's key resolver, for jwtVerify. */
  readonly getKey: JWTVerifyGetKey;
  /**
   * The identities (see {@link TrackedKeySet.identify}) of the keys in the set as jose holds it
   * now; undefined while the set is not known to be current (a remote JWKS before its first fetch
   * or past its max age), when nothing may be served from the cache.
   */
  current(): Promise<ReadonlySet<string> | undefined>;
  /**
   * The identity of the key that verified a token: the key's JWK thumbprint (RFC 7638), with the
   * token's `kid` if it named one; undefined when it cannot be told (then the token is not cached).
   */
  identify(key: VerificationKey, kid: string | undefined): Promise<string | undefined>;
  /** Called on every request: refetches, in the background, a remote JWKS about to go stale. */
  maintain(): void;
  /** How long a caller refused for want of keys should wait before trying again, in ms. */
  readonly retryAfterMs: number;
}
