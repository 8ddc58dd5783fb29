import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, type JSONWebKeySet, type JWTPayload, SignJWT } from "jose";

/** Issuer and audience that test servers are configured to expect. */
export const TEST_ISSUER = "https://issuer.folio.test";
export const TEST_AUDIENCE = "folio-api";

/** A test token issuer: a fresh signing key and its public JWKS. */
export interface TestIssuer {
  readonly kid: string;
  readonly alg: string;
  readonly jwks: JSONWebKeySet;
  /**
   * Signs a token; claims default to a valid access token of a random user and org with the
   * issuer's scopes. `expiresIn` null: a token without `exp`.
   */
  sign(claims?: JWTPayload, header?: Record<string, unknown>, expiresIn?: string | null): Promise<string>;
}

/** How a test issuer signs, each optional. */
export interface TestIssuerOptions {
  /** Signing algorithm; ES256 when absent. */
  readonly alg?: string;
  /** Key id; a random UUID when absent. */
  readonly kid?: string;
  /**
   * The scopes of a token whose claims name none. Callers of the API pass every scope of it,
   * `apiScopeNames` of @folio/api-document, read from the proto. This package cannot read them
   * itself: @folio/proto and the packages it builds on test with it, so depending on either would
   * be a cycle. When absent, {@link FALLBACK_SCOPES}.
   */
  readonly scopes?: readonly string[];
}

/**
 * The scopes of a token when its issuer was given none: enough for the token verifier's own tests,
 * which sit below the API and cannot read its scopes. Not every scope of the API.
 */
export const FALLBACK_SCOPES: readonly string[] = ["files:upload", "project:read"];

/** Creates a test issuer with its own key pair; a string is the signing algorithm alone. */
export async function createTestIssuer(options: TestIssuerOptions | string = {}): Promise<TestIssuer> {
  const {
    alg = "ES256",
    kid = randomUUID(),
    scopes = FALLBACK_SCOPES,
  } = typeof options === "string" ? { alg: options } : options;
  const scope = scopes.join(" ");
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwks: JSONWebKeySet = { keys: [{ ...(await exportJWK(publicKey)), kid, alg, use: "sig" }] };
  return {
    kid,
    alg,
    jwks,
    sign(claims = {}, header = {}, expiresIn = "5m") {
      const jwt = new SignJWT({
        sub: randomUUID(),
        org_id: randomUUID(),
        scope,
        ...claims,
      })
        .setProtectedHeader({ alg, kid, typ: "at+jwt", ...header })
        .setIssuer((claims.iss as string | undefined) ?? TEST_ISSUER)
        .setAudience((claims.aud as string | string[] | undefined) ?? TEST_AUDIENCE);
      // Explicit iat and exp in the claims win over the defaults.
      if (claims.iat === undefined) jwt.setIssuedAt();
      if (claims.exp === undefined && expiresIn !== null) jwt.setExpirationTime(expiresIn);
      return jwt.sign(privateKey);
    },
  };
}
