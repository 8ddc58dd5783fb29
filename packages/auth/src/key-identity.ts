import { calculateJwkThumbprint, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";

/** A key as jwtVerify reports it: the one that verified the token. */
export type VerificationKey = Awaited<ReturnType<JWTVerifyGetKey>>;

/** Identities of every key of a JWKS: its thumbprint, and its thumbprint with its kid. */
export async function identitiesOf(jwks: JSONWebKeySet): Promise<ReadonlySet<string>> {
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

/**
 * The identity of the key that verified a token: the key's JWK thumbprint (RFC 7638), with the
 * token's `kid` if it named one; undefined when it cannot be told (then the token is not cached).
 */
export async function identify(key: VerificationKey, kid: string | undefined): Promise<string | undefined> {
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
