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
   * Signs a token; claims default to a valid access token of a random user and org with both
   * scopes. `expiresIn` null: a token without `exp`.
   */
  sign(claims?: JWTPayload, header?: Record<string, unknown>, expiresIn?: string | null): Promise<string>;
}

/** Creates a test issuer with its own key pair (ES256 unless told otherwise). */
export async function createTestIssuer(alg = "ES256", kid: string = randomUUID()): Promise<TestIssuer> {
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
        scope: "files:upload project:read",
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
