import { resolve } from "node:path";
import { ConfigError, type Env, integer, text } from "./variables.js";

/** How access tokens are verified: a JWKS from the issuer, or development mode's own keys. */
export type AuthConfig =
  | ({ readonly mode: "jwks"; readonly jwksUrl: string; readonly jwksCooldownSeconds: number } & TokenRules)
  | ({ readonly mode: "jwks"; readonly jwksFile: string } & TokenRules)
  | ({ readonly mode: "development" } & TokenRules);

interface TokenRules {
  readonly issuer: string;
  readonly audience: string;
  readonly algorithms: readonly string[] | undefined;
  readonly clockToleranceSeconds: number;
  readonly userClaim: string;
  readonly orgClaim: string;
  /** The issuer's OAuth 2.0 token endpoint, for the API documentation; undefined: not known. */
  readonly tokenUrl: string | undefined;
  /** Verified access tokens remembered, so a reused token is not verified again; 0: none. */
  readonly tokenCacheSize: number;
}

/** Reads the AUTH_* variables: a JWKS (URL or file) or development mode, and the token rules. */
export function loadAuthConfig(env: Env, production: boolean): AuthConfig {
  const jwksUrl = text(env, "AUTH_JWKS_URL");
  const jwksFile = text(env, "AUTH_JWKS_FILE");
  if (jwksUrl !== undefined && jwksFile !== undefined) {
    throw new ConfigError("AUTH_JWKS_URL", "and AUTH_JWKS_FILE are exclusive: set one");
  }
  const development = jwksUrl === undefined && jwksFile === undefined;
  if (development && production) {
    throw new ConfigError(
      "AUTH_JWKS_URL",
      "(or AUTH_JWKS_FILE) is required when NODE_ENV=production: development mode signs its own tokens",
    );
  }
  if (jwksUrl !== undefined && !/^https?:\/\//.test(jwksUrl)) {
    throw new ConfigError("AUTH_JWKS_URL", "must be an http(s) URL");
  }
  const issuer = text(env, "AUTH_ISSUER");
  const audience = text(env, "AUTH_AUDIENCE");
  if (!development && issuer === undefined) throw new ConfigError("AUTH_ISSUER", "is required with a JWKS");
  if (!development && audience === undefined)
    throw new ConfigError("AUTH_AUDIENCE", "is required with a JWKS");
  const rules: TokenRules = {
    issuer: issuer ?? "folio-development",
    audience: audience ?? "folio",
    algorithms: text(env, "AUTH_ALGORITHMS")
      ?.split(",")
      .map((a) => a.trim()),
    clockToleranceSeconds: integer(env, "AUTH_CLOCK_TOLERANCE_SECONDS", 30, 0, 300),
    userClaim: text(env, "AUTH_USER_CLAIM") ?? "sub",
    orgClaim: text(env, "AUTH_ORG_CLAIM") ?? "org_id",
    tokenUrl: text(env, "AUTH_TOKEN_URL"),
    tokenCacheSize: integer(env, "AUTH_TOKEN_CACHE_SIZE", 10_000, 0, 1_000_000),
  };
  if (rules.tokenUrl !== undefined && !/^https?:\/\//.test(rules.tokenUrl)) {
    throw new ConfigError("AUTH_TOKEN_URL", "must be an http(s) URL");
  }
  if (rules.algorithms?.some((a) => a === "none" || a.startsWith("HS"))) {
    throw new ConfigError("AUTH_ALGORITHMS", "must list asymmetric algorithms only (no none, no HS*)");
  }
  if (jwksUrl !== undefined) {
    const jwksCooldownSeconds = integer(env, "AUTH_JWKS_COOLDOWN_SECONDS", 30, 0, 3600);
    return { mode: "jwks", jwksUrl, jwksCooldownSeconds, ...rules };
  }
  if (jwksFile !== undefined) return { mode: "jwks", jwksFile: resolve(jwksFile), ...rules };
  return { mode: "development", ...rules };
}
