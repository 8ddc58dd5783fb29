import { readFile } from "node:fs/promises";
import { importJWK, type JWK } from "jose";
import { AUTH_JWKS_FILE } from "../config/auth.js";
import { AUTH_ALGORITHMS } from "../config/auth-algorithms.js";
import { ConfigError } from "../config/variables.js";

/** The algorithms of ES* keys, by curve. */
const EC_ALGORITHMS: Readonly<Record<string, string>> = {
  "P-256": "ES256",
  "P-384": "ES384",
  "P-521": "ES512",
};

/**
 * Checks AUTH_JWKS_FILE at start: readable, a JWKS (`{"keys": [...]}`), each signing key a public
 * key jose imports, and one at least for an algorithm of `algorithms`. Otherwise the server would
 * start and answer every call 401.
 */
export async function checkJwksFile(path: string, algorithms: readonly string[]): Promise<void> {
  const refuse = (problem: string) => new ConfigError(AUTH_JWKS_FILE.name, `(${path}) ${problem}`);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw refuse(`cannot be read: ${(error as Error).message}`);
  }
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown } | null)?.keys;
  } catch (error) {
    throw refuse(`is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(keys)) throw refuse('is not a JWKS: it needs a "keys" array');
  let usable = 0;
  for (const [index, key] of keys.entries()) {
    const jwk = (typeof key === "object" && key !== null ? key : {}) as JWK;
    const name = `key ${index + 1} of ${keys.length}${typeof jwk.kid === "string" ? ` (kid "${jwk.kid}")` : ""}`;
    if (typeof jwk.kty !== "string") throw refuse(`is not a JWKS: ${name} has no "kty"`);
    // Encryption keys may share the set; tokens are never verified with them.
    if (jwk.use === "enc") continue;
    if (jwk.kty === "oct" || "d" in jwk) {
      throw refuse(`holds a secret or private key (${name}): publish public keys only`);
    }
    const candidates = algorithmsOf(jwk);
    const alg = candidates[0];
    if (alg === undefined)
      throw refuse(`has ${name} of kty "${jwk.kty}", for no algorithm tokens are signed with`);
    try {
      await importJWK(jwk, alg);
    } catch (error) {
      throw refuse(`has ${name}, which cannot be imported for ${alg}: ${(error as Error).message}`);
    }
    if (candidates.some((candidate) => algorithms.includes(candidate))) usable += 1;
  }
  if (usable === 0) {
    throw refuse(
      `has no key for ${AUTH_ALGORITHMS.name} (${algorithms.join(", ")}): every token would be refused`,
    );
  }
}

/** The algorithms a key verifies: its own `alg`, else those its type and curve allow (as jose picks keys). */
function algorithmsOf(jwk: JWK): string[] {
  if (typeof jwk.alg === "string") return [jwk.alg];
  switch (jwk.kty) {
    case "RSA":
      return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
    case "EC": {
      const alg = EC_ALGORITHMS[jwk.crv ?? ""];
      return alg === undefined ? [] : [alg];
    }
    case "OKP":
      return jwk.crv === "Ed25519" ? ["EdDSA", "Ed25519"] : [];
    default:
      // An AKP (ML-DSA) key names its algorithm: its type alone does not tell it.
      return [];
  }
}
