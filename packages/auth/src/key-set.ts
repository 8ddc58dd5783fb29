import { createLocalJWKSet, type JSONWebKeySet } from "jose";
import { openFileKeySet } from "./file-key-set.js";
import { identify, identitiesOf } from "./key-identity.js";
import { openRemoteKeySet } from "./remote-key-set.js";
import type { KeySetOptions, TrackedKeySet } from "./tracked-key-set.js";

export { DEFAULT_JWKS_FILE_POLL_MS } from "./file-key-set.js";
export type { VerificationKey } from "./key-identity.js";
export { DEFAULT_JWKS_MAX_AGE_MS } from "./remote-key-set.js";
export type { KeySetOptions, TrackedKeySet } from "./tracked-key-set.js";

/** Where the verification keys come from. */
export type KeySource =
  | { readonly jwksUrl: string }
  | { readonly jwksFile: string }
  | { readonly jwks: JSONWebKeySet };

/** Opens the key set of a {@link KeySource}; a remote one or a file is tracked across its changes. */
export async function openKeySet(source: KeySource, options: KeySetOptions = {}): Promise<TrackedKeySet> {
  if ("jwksUrl" in source) return openRemoteKeySet(new URL(source.jwksUrl), options);
  if ("jwksFile" in source) return openFileKeySet(source.jwksFile, options);
  const getKey = createLocalJWKSet(source.jwks);
  // An in-memory set never changes while the process runs.
  const identities = await identitiesOf(getKey.jwks());
  return {
    getKey,
    current: async () => identities,
    identify,
    maintain: () => {},
    retryAfterMs: 5_000,
  };
}
