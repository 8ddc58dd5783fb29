import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

/** Issuer and audience every server of the comparison is configured with. */
export const ISSUER = "https://issuer.folio.bench";
export const AUDIENCE = "folio-api";

/** One ES256 signing key, its public JWKS in a file (the one every server reads), and a signer. */
export interface BenchIssuer {
  readonly jwksFile: string;
  /** An access token (RFC 9068 `at+jwt`) with these claims, valid for `hours`. */
  sign(claims: JWTPayload & { org_id: string; scope: string }, hours?: number): Promise<string>;
}

export async function createBenchIssuer(dir: string): Promise<BenchIssuer> {
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const jwksFile = join(dir, "jwks.json");
  await writeFile(
    jwksFile,
    JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }] }),
  );
  return {
    jwksFile,
    sign: (claims, hours = 4) =>
      new SignJWT({ sub: randomUUID(), ...claims })
        .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${hours}h`)
        .sign(privateKey),
  };
}
