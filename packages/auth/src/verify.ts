import { errors, type JWTPayload, type JWTVerifyResult, jwtVerify, type ResolvedKey } from "jose";
import type { AccessTokenVerifier } from "./caller.js";
import { isCanonicalCompactJws } from "./compact-jws.js";
import { type KeySource, openKeySet } from "./key-set.js";
import type { KeySetListener } from "./key-set-loading.js";
import { isUuid } from "./uuid.js";
import {
  createVerifiedTokenCache,
  DEFAULT_TOKEN_CACHE_MAX_ENTRIES,
  type VerifiedToken,
} from "./verified-token-cache.js";

export type { AccessTokenVerifier } from "./caller.js";

/** The refusal of a token that is not one canonical JWS Compact Serialization. */
const MALFORMED = "token is malformed (RFC 7515: three parts of unpadded base64url)";

export type { KeySource } from "./key-set.js";

/**
 * Asymmetric algorithms accepted by default. HMAC is never in the list: with a JWKS of public keys,
 * accepting HS256 would let anyone sign with the public key. `none` is rejected by jose anyway.
 */
export const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

/** `typ` header values accepted: RFC 9068 access tokens, and plain JWTs from older issuers. */
const ACCEPTED_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt"]);

/** Options of {@link createAccessTokenVerifier}. */
export interface AccessTokenVerifierOptions {
  readonly keys: KeySource;
  /** Expected `iss`. */
  readonly issuer: string;
  /** Expected `aud` (one of the token's audiences). */
  readonly audience: string;
  /** Accepted signature algorithms; defaults to {@link DEFAULT_ALGORITHMS}. */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp`/`nbf`/`iat`, in seconds (default 30). */
  readonly clockToleranceSeconds?: number;
  /** Claim holding the user id (default `sub`). */
  readonly userClaim?: string;
  /** Claim holding the organisation id (default `org_id`). */
  readonly orgClaim?: string;
  /** With `jwksUrl`: minimum time between two fetches caused by unknown `kid`s (default 30 s). */
  readonly jwksCooldownMs?: number;
  /**
   * With `jwksUrl`: how long a fetched JWKS is used before it is fetched again (default 10 min).
   * Also the longest a key the issuer removed still verifies tokens, cached or not.
   */
  readonly jwksMaxAgeMs?: number;
  /** With `jwksFile`: how often the file is read again, so that rotated keys are used (default 5 s). */
  readonly jwksFilePollMs?: number;
  /**
   * Told what happens to the keys, for logs, metrics and readiness: each failure to load them, an
   * outage's start and end, whether tokens can be verified at all, a changed file read.
   */
  readonly onKeySetEvent?: KeySetListener;
  /** Stops the key set's background work (polling a file, retrying a URL) once aborted. */
  readonly signal?: AbortSignal;
  /**
   * Verified tokens remembered, so a reused token is not verified again (default 10,000; 0 turns
   * the cache off). See {@link createVerifiedTokenCache} for what a hit still checks.
   */
  readonly tokenCacheMaxEntries?: number;
}

/** Why a token was refused; `message` is safe to return to the client (never echoes the token). */
export class InvalidTokenError extends Error {
  override readonly name = "InvalidTokenError";
}

/** The keys to verify tokens with could not be loaded; the request may succeed later. */
export class KeySetUnavailableError extends Error {
  override readonly name = "KeySetUnavailableError";
  /** When a retry may succeed, in seconds: the key set's next attempt to load its keys. */
  readonly retryAfterSeconds: number;

  constructor(message: string, options: ErrorOptions & { readonly retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 5;
  }
}

/**
 * Builds a verifier for RFC 9068 JWT access tokens signed by keys of a JWKS, caching the tokens it
 * accepted (see {@link AccessTokenVerifierOptions.tokenCacheMaxEntries}).
 */
export async function createAccessTokenVerifier(
  options: AccessTokenVerifierOptions,
): Promise<AccessTokenVerifier> {
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.some((alg) => alg === "none" || alg.startsWith("HS"))) {
    throw new Error("AUTH_ALGORITHMS must list asymmetric algorithms only (no none, no HS*)");
  }
  const cacheSize = options.tokenCacheMaxEntries ?? DEFAULT_TOKEN_CACHE_MAX_ENTRIES;
  if (!Number.isInteger(cacheSize) || cacheSize < 0) {
    throw new Error(`tokenCacheMaxEntries must be a whole number, 0 for no cache (got ${cacheSize})`);
  }
  // jose caches the set and refetches on an unknown kid, at most once per cooldown: key rotation
  // is picked up without a restart, and bogus kids cannot hammer the issuer.
  const keys = await openKeySet(options.keys, {
    ...(options.jwksCooldownMs !== undefined ? { cooldownMs: options.jwksCooldownMs } : {}),
    ...(options.jwksMaxAgeMs !== undefined ? { maxAgeMs: options.jwksMaxAgeMs } : {}),
    ...(options.jwksFilePollMs !== undefined ? { pollMs: options.jwksFilePollMs } : {}),
    ...(options.onKeySetEvent !== undefined ? { onEvent: options.onKeySetEvent } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const retryAfterSeconds = Math.max(1, Math.ceil(keys.retryAfterMs / 1000));
  const userClaim = options.userClaim ?? "sub";
  const orgClaim = options.orgClaim ?? "org_id";
  const tolerance = options.clockToleranceSeconds ?? 30;

  const verify = async (token: string): Promise<VerifiedToken> => {
    let result: JWTVerifyResult & ResolvedKey;
    try {
      result = await jwtVerify(token, keys.getKey, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        clockTolerance: tolerance,
        // RFC 9068, section 2.2: an access token without an expiry would never stop working.
        requiredClaims: ["exp"],
      });
      // jose checks a future iat only together with a maximum token age, which is not wanted.
      const iat = result.payload.iat;
      if (iat !== undefined && iat > Date.now() / 1000 + tolerance) {
        throw new InvalidTokenError("token was issued in the future");
      }
      const typ = result.protectedHeader.typ;
      if (typ !== undefined && !ACCEPTED_TYPES.has(typ.toLowerCase())) {
        throw new InvalidTokenError(`token type "${typ}" is not an access token`);
      }
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      // The issuer's keys being out of reach is our outage, not the client's bad token.
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
        throw new KeySetUnavailableError(
          `signing keys could not be fetched; retry in ${retryAfterSeconds}s`,
          {
            cause: error,
            retryAfterSeconds,
          },
        );
      }
      throw new InvalidTokenError(describeFailure(error));
    }
    const payload = result.payload;
    const userId = payload[userClaim];
    const orgId = payload[orgClaim];
    if (typeof userId !== "string" || !isUuid(userId)) {
      throw new InvalidTokenError(`token claim "${userClaim}" must be a UUID`);
    }
    if (typeof orgId !== "string" || !isUuid(orgId)) {
      throw new InvalidTokenError(`token claim "${orgClaim}" must be a UUID`);
    }
    return {
      // Frozen: a cached caller is handed to many requests.
      caller: Object.freeze({
        userId: userId.toLowerCase(),
        orgId: orgId.toLowerCase(),
        scopes: readScopes(payload),
      }),
      // requiredClaims made jose check that exp is present and a number.
      exp: payload.exp as number,
      key: result.key,
      kid: result.protectedHeader.kid,
    };
  };

  const verifyOrCache: AccessTokenVerifier =
    cacheSize === 0
      ? async (token) => (await verify(token)).caller
      : createVerifiedTokenCache({ verify, keys, maxEntries: cacheSize });
  // Before the cache and the signature: a token has one spelling, or it is refused (see
  // isCanonicalCompactJws), so respellings neither bypass the cache nor make a token new.
  return async (token) => {
    if (!isCanonicalCompactJws(token)) {
      throw new InvalidTokenError(MALFORMED);
    }
    return await verifyOrCache(token);
  };
}

/** Scopes from `scope` (RFC 9068: space-delimited string) or `scp` (array, common in the wild). */
function readScopes(payload: JWTPayload): ReadonlySet<string> {
  const scopes = new Set<string>();
  if (typeof payload.scope === "string") {
    for (const scope of payload.scope.split(" ")) if (scope !== "") scopes.add(scope);
  }
  if (Array.isArray(payload.scp)) {
    for (const scope of payload.scp) if (typeof scope === "string") scopes.add(scope);
  }
  return scopes;
}

/** A short, token-free explanation of why verification failed. */
function describeFailure(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return "token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return `token has no "${error.claim}" claim`;
    switch (error.claim) {
      case "nbf":
        return "token is not yet valid";
      case "iat":
        return "token was issued in the future";
      case "iss":
        return "token has the wrong issuer";
      case "aud":
        return "token has the wrong audience";
      default:
        return `token claim "${error.claim}" is invalid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "token signature algorithm is not allowed";
  if (error instanceof errors.JWKSNoMatchingKey) return "token is signed with an unknown key";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (error instanceof errors.JOSENotSupported) return "token uses an unsupported algorithm or key";
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) {
    return "token is malformed";
  }
  return "token could not be verified";
}
