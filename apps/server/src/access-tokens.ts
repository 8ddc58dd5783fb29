import {
  type AccessTokenVerifier,
  createAccessTokenVerifier,
  type DevelopmentIssuer,
  loadDevelopmentIssuer,
} from "@folio/auth";
import type { Config } from "./env.js";

/** How this server checks access tokens, and in development mode the issuer it signs them with. */
export interface AccessTokens {
  readonly verify: AccessTokenVerifier;
  readonly developmentIssuer: DevelopmentIssuer | undefined;
}

/** Token verification for the configured mode: a JWKS URL, a JWKS file, or development mode. */
export async function createAccessTokens(config: Config): Promise<AccessTokens> {
  const auth = config.auth;
  const rules = {
    issuer: auth.issuer,
    audience: auth.audience,
    clockToleranceSeconds: auth.clockToleranceSeconds,
    userClaim: auth.userClaim,
    orgClaim: auth.orgClaim,
    tokenCacheMaxEntries: auth.tokenCacheSize,
    ...(auth.algorithms ? { algorithms: auth.algorithms } : {}),
  };
  if (auth.mode === "development") {
    const developmentIssuer = await loadDevelopmentIssuer(config.dataDir, rules);
    const verify = await createAccessTokenVerifier({ ...rules, keys: { jwks: developmentIssuer.jwks } });
    return { verify, developmentIssuer };
  }
  const verify =
    "jwksUrl" in auth
      ? await createAccessTokenVerifier({
          ...rules,
          keys: { jwksUrl: auth.jwksUrl },
          jwksCooldownMs: auth.jwksCooldownSeconds * 1000,
        })
      : await createAccessTokenVerifier({ ...rules, keys: { jwksFile: auth.jwksFile } });
  return { verify, developmentIssuer: undefined };
}
