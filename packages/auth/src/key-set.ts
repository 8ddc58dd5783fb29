import { readFile } from "node:fs/promises";
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from "jose";

/** Where the verification keys come from. */
export type KeySource =
  | { readonly jwksUrl: string }
  | { readonly jwksFile: string }
  | { readonly jwks: JSONWebKeySet };

/** A key as jwtVerify reports it: the one that verified the token. */
export type VerificationKey = Awaited<ReturnType<JWTVerifyGetKey>>;

/** Default max age of a fetched remote JWKS: jose's default, stated here because it bounds revocation. */
export const DEFAULT_JWKS_MAX_AGE_MS = 600_000;

/** How a key set is opened. */
export interface KeySetOptions {
  /** With `jwksUrl`: minimum time between two fetches caused by unknown `kid`s (default 30 s). */
  readonly cooldownMs?: number;
  /** With `jwksUrl`: how long a fetched JWKS is used before it is fetched again (default 10 min). */
  readonly maxAgeMs?: number;
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
}

/** Opens the key set of a {@link KeySource}; a remote one is tracked across its refetches. */
export async function openKeySet(source: KeySource, options: KeySetOptions = {}): Promise<TrackedKeySet> {
  if ("jwksUrl" in source) return openRemoteKeySet(new URL(source.jwksUrl), options);
  const jwks =
    "jwksFile" in source
      ? (JSON.parse(await readFile(source.jwksFile, "utf8")) as JSONWebKeySet)
      : source.jwks;
  const getKey = createLocalJWKSet(jwks);
  // A file or an in-memory set never changes while the process runs.
  const identities = await identitiesOf(getKey.jwks());
  return {
    getKey,
    current: async () => identities,
    identify,
    maintain: () => {},
  };
}

function openRemoteKeySet(url: URL, options: KeySetOptions): TrackedKeySet {
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_JWKS_MAX_AGE_MS;
  // Refetch this long before the set goes stale, so that requests served from the cache never
  // find it stale (and so never wait for the fetch).
  const refreshAheadMs = Math.min(60_000, maxAgeMs / 10);
  /** Successful (200) responses so far: the set jose holds may have changed since the last count. */
  let fetches = 0;
  /** Whether the fetch in flight, if any, has answered: jose may not have applied its set yet. */
  let answered = false;
  /** When the next background refetch is due; Infinity until the first fetch succeeds. */
  let refreshAt = Number.POSITIVE_INFINITY;
  let indexed: { fetches: number; duringFetch: boolean; identities: ReadonlySet<string> } | undefined;
  let indexing: Promise<ReadonlySet<string>> | undefined;

  // jose refetches on its own (first use, an unknown kid, a stale set) without telling anyone;
  // wrapping its fetch is how we learn that the set may have changed.
  const keySet = createRemoteJWKSet(url, {
    cooldownDuration: cooldownMs,
    cacheMaxAge: maxAgeMs,
    [customFetch]: async (resource, init) => {
      answered = false;
      const response = await fetch(resource, init);
      if (response.status === 200) {
        fetches += 1;
        answered = true;
        refreshAt = Date.now() + maxAgeMs - refreshAheadMs;
      }
      return response;
    },
  });

  const index = async (): Promise<ReadonlySet<string>> => {
    const at = fetches;
    // jose applies a response only after parsing it: between the answer and the end of the
    // reload the set read now may be the one before it, so it is indexed again afterwards. (jose
    // runs one fetch at a time: a reload still waiting for its answer has applied the ones before.)
    const duringFetch = keySet.reloading && answered;
    const identities = await identitiesOf(keySet.jwks() ?? { keys: [] });
    indexed = { fetches: at, duringFetch, identities };
    return identities;
  };

  return {
    getKey: keySet,
    current: async () => {
      // Past its max age jose would refetch before verifying anything; the cache must not serve
      // from a set that jose itself no longer trusts. This bounds how long a removed key's tokens
      // are still accepted to the max age, cached or not.
      if (!keySet.fresh) return undefined;
      if (indexed !== undefined && indexed.fetches === fetches && !indexed.duringFetch) {
        return indexed.identities;
      }
      indexing ??= index().finally(() => {
        indexing = undefined;
      });
      return indexing;
    },
    identify,
    maintain: () => {
      const now = Date.now();
      if (now < refreshAt || keySet.reloading) return;
      // At most one attempt per cooldown (and per second, whatever the cooldown): an issuer that
      // is down is not asked on every request.
      refreshAt = now + Math.max(cooldownMs, 1_000);
      // A failed refetch keeps the current set until it goes stale; requests then verify in full
      // and report the issuer's outage themselves (KeySetUnavailableError).
      keySet.reload().catch(() => {});
    },
  };
}

/** Identities of every key of a JWKS: its thumbprint, and its thumbprint with its kid. */
async function identitiesOf(jwks: JSONWebKeySet): Promise<ReadonlySet<string>> {
  const identities = new Set<string>();
  for (const jwk of jwks.keys) {
    let thumbprint: string;
    try {
      thumbprint = await calculateJwkThumbprint(jwk);
    } catch {
      continue; // A key type jose cannot use: no token was verified by it.
    }
    identities.add(thumbprint);
    if (typeof jwk.kid === "string") identities.add(`${thumbprint} ${jwk.kid}`);
  }
  return identities;
}

/** Thumbprints of the keys jose imported; each key object is imported once per fetched set. */
const thumbprints = new WeakMap<object, Promise<string | undefined>>();

async function identify(key: VerificationKey, kid: string | undefined): Promise<string | undefined> {
  let thumbprint = thumbprints.get(key);
  if (thumbprint === undefined) {
    // Key sets import public keys extractable; a key that is not is simply not cached for.
    thumbprint =
      key instanceof Uint8Array
        ? Promise.resolve(undefined)
        : calculateJwkThumbprint(key).catch(() => undefined);
    thumbprints.set(key, thumbprint);
  }
  const value = await thumbprint;
  // The thumbprint alone for a token without kid: jose picked the key by its material. With a kid,
  // a key still published under another kid would not verify the token, so the kid counts too.
  // A thumbprint is base64url, so the space cannot be part of it.
  return value === undefined ? undefined : kid === undefined ? value : `${value} ${kid}`;
}
