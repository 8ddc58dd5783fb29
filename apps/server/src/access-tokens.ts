import {
  type AccessTokenVerifier,
  createAccessTokenVerifier,
  type DevelopmentIssuer,
  type KeySetListener,
  loadDevelopmentIssuer,
} from "@folio/auth";
import type { Config } from "./env.js";

/** How this server checks access tokens, and in development mode the issuer it signs them with. */
export interface AccessTokens {
  readonly verify: AccessTokenVerifier;
  readonly developmentIssuer: DevelopmentIssuer | undefined;
  /** Stops the key set's background work: re-reading a JWKS file, retrying a JWKS URL. */
  close(): void;
}

/**
 * Token verification for the configured mode: a JWKS URL, a JWKS file, or development mode.
 * `onKeySetEvent` is told what happens to the keys (see health/signing-keys.ts).
 */
export async function createAccessTokens(
  config: Config,
  onKeySetEvent?: KeySetListener,
): Promise<AccessTokens> {
  const auth = config.auth;
  const stop = new AbortController();
  const close = () => stop.abort();
  const rules = {
    issuer: auth.issuer,
    audience: auth.audience,
    clockToleranceSeconds: auth.clockToleranceSeconds,
    userClaim: auth.userClaim,
    orgClaim: auth.orgClaim,
    tokenCacheMaxEntries: auth.tokenCacheSize,
    ...(auth.algorithms ? { algorithms: auth.algorithms } : {}),
    ...(onKeySetEvent !== undefined ? { onKeySetEvent } : {}),
    signal: stop.signal,
  };
  if (auth.mode === "development") {
    const developmentIssuer = await loadDevelopmentIssuer(config.dataDir, rules);
    const verify = await createAccessTokenVerifier({ ...rules, keys: { jwks: developmentIssuer.jwks } });
    return { verify, developmentIssuer, close };
  }
  const verify =
    "jwksUrl" in auth
      ? await createAccessTokenVerifier({
          ...rules,
          keys: { jwksUrl: auth.jwksUrl },
          jwksCooldownMs: auth.jwksCooldownSeconds * 1000,
        })
      : await createAccessTokenVerifier({
          ...rules,
          keys: { jwksFile: auth.jwksFile },
          jwksFilePollMs: auth.jwksFilePollMs,
        });
  return { verify, developmentIssuer: undefined, close };
}
