import { ConfigError, type Env, text, textSetting } from "./variables.js";

/**
 * The JWS algorithms of public-key signatures that jose 6 verifies (RFC 7518, RFC 8037, the
 * fully-specified Ed25519 and ML-DSA): what AUTH_ALGORITHMS may list.
 */
export const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
  "ML-DSA-44",
  "ML-DSA-65",
  "ML-DSA-87",
] as const;

/** Its default is @folio/auth's DEFAULT_ALGORITHMS (test/config-settings.test.ts holds them equal). */
export const AUTH_ALGORITHMS = textSetting({
  name: "AUTH_ALGORITHMS",
  default: "`RS256,PS256,ES256,EdDSA`",
  values: `comma-separated, of ${ASYMMETRIC_ALGORITHMS.map((alg) => `\`${alg}\``).join(", ")} (case matters)`,
  meaning:
    "Accepted signature algorithms; `none` and `HS*` are refused, and so is a name jose does not " +
    "verify. ML-DSA needs a Node.js whose Web Crypto has it (checked at start).",
});

/** AUTH_ALGORITHMS' list; undefined when unset (@folio/auth's defaults apply). */
export function loadAlgorithms(env: Env): string[] | undefined {
  const list = text(env, AUTH_ALGORITHMS);
  if (list === undefined) return undefined;
  const algorithms = list
    .split(",")
    .map((alg) => alg.trim())
    .filter((alg) => alg !== "");
  // With a JWKS of public keys, HMAC would let anyone holding the public key sign.
  if (algorithms.some((alg) => alg.toLowerCase() === "none" || alg.toUpperCase().startsWith("HS"))) {
    throw new ConfigError("AUTH_ALGORITHMS", "must list asymmetric algorithms only (no none, no HS*)");
  }
  const unknown = algorithms.filter((alg) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg));
  if (unknown.length > 0 || algorithms.length === 0) {
    throw new ConfigError(
      "AUTH_ALGORITHMS",
      `must list JWS algorithms of public-key signatures, of ${ASYMMETRIC_ALGORITHMS.join(", ")} (got "${list}")`,
    );
  }
  return algorithms;
}
