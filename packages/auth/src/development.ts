import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  SignJWT,
} from "jose";

/** Algorithm of the development signing key. */
const ALGORITHM = "ES256";
/** File, inside the data directory, that keeps the development signing key across restarts. */
const KEY_FILE = "dev-signing-key.jwk.json";

/** What to put in a development access token. */
export interface TokenClaims {
  readonly userId: string;
  readonly orgId: string;
  readonly scopes: readonly string[];
  /** Lifetime in seconds (default 12 h). */
  readonly expiresInSeconds?: number;
}

/** A local token issuer for development mode: its public keys and a way to mint tokens. */
export interface DevelopmentIssuer {
  readonly issuer: string;
  readonly audience: string;
  /** The public keys, as served at /.well-known/jwks.json. */
  readonly jwks: JSONWebKeySet;
  /** Signs an RFC 9068 access token. */
  mint(claims: TokenClaims): Promise<string>;
}

/**
 * Loads the development signing key from `dataDir`, creating it on first use, so tokens printed
 * by one run stay valid after a restart.
 */
export async function loadDevelopmentIssuer(
  dataDir: string,
  options: { issuer: string; audience: string },
): Promise<DevelopmentIssuer> {
  const privateJwk = await loadOrCreateKey(dataDir);
  const { d: _private, ...publicJwk } = privateJwk;
  const signingKey = await importJWK(privateJwk, ALGORITHM);
  return {
    issuer: options.issuer,
    audience: options.audience,
    jwks: { keys: [{ ...publicJwk, use: "sig" }] },
    mint: (claims) =>
      new SignJWT({
        org_id: claims.orgId,
        scope: claims.scopes.join(" "),
        client_id: "folio-development",
      })
        .setProtectedHeader({ alg: ALGORITHM, kid: privateJwk.kid as string, typ: "at+jwt" })
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setSubject(claims.userId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${claims.expiresInSeconds ?? 12 * 3600}s`)
        .sign(signingKey),
  };
}

async function loadOrCreateKey(dataDir: string): Promise<JWK> {
  const path = join(dataDir, KEY_FILE);
  try {
    return JSON.parse(await readFile(path, "utf8")) as JWK;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const key: JWK = { ...jwk, alg: ALGORITHM, kid: await calculateJwkThumbprint(jwk) };
  await mkdir(dataDir, { recursive: true });
  // wx: two servers starting on one data directory must not overwrite each other's key.
  await writeFile(path, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600, flag: "wx" }).catch(
    async (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
  return JSON.parse(await readFile(path, "utf8")) as JWK;
}
