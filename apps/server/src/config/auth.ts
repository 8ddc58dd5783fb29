import { resolve } from "node:path";
import { AUTH_ALGORITHMS, loadAlgorithms } from "./auth-algorithms.js";
import { checkDevelopmentMode, DEVELOPMENT_MODE_REMOTE_DATABASE } from "./development-mode.js";
import {
  ConfigError,
  type Env,
  integer,
  integerSetting,
  type SettingGroup,
  text,
  textSetting,
} from "./variables.js";

/** How access tokens are verified: a JWKS from the issuer, or development mode's own keys. */
export type AuthConfig =
  | ({ readonly mode: "jwks"; readonly jwksUrl: string; readonly jwksCooldownSeconds: number } & TokenRules)
  | ({ readonly mode: "jwks"; readonly jwksFile: string; readonly jwksFilePollMs: number } & TokenRules)
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

/** The issuer and audience of development mode's own tokens. */
const DEVELOPMENT_ISSUER = "folio-development";
const DEVELOPMENT_AUDIENCE = "folio";

export const AUTH_JWKS_URL = textSetting({
  name: "AUTH_JWKS_URL",
  values: "an `http://` or `https://` URL",
  meaning:
    "URL of the token issuer's JWKS (cached; refetched on an unknown `kid`, at most once per " +
    "`AUTH_JWKS_COOLDOWN_SECONDS`).",
});

export const AUTH_JWKS_COOLDOWN_SECONDS = integerSetting({
  name: "AUTH_JWKS_COOLDOWN_SECONDS",
  fallback: 30,
  min: 0,
  max: 3600,
  meaning:
    "With `AUTH_JWKS_URL`: how often, at most, tokens with an unknown `kid` make the server fetch the " +
    "JWKS again (`0` to `3600`). A rotated key is picked up within this time, and tokens with made-up " +
    "`kid`s cannot make the server hammer the issuer. A failed background refresh is retried after it " +
    "too (at least 1 s later). While no usable JWKS is held (none fetched yet, or the one held is past its " +
    "10 min max age) and the URL fails, the server is not ready, calls are 503 `unavailable` with " +
    "`Retry-After`, and the fetch is retried every `AUTH_JWKS_COOLDOWN_SECONDS` (at least 1 s, at most 5 s).",
});

export const AUTH_JWKS_FILE = textSetting({
  name: "AUTH_JWKS_FILE",
  values: "a file's path",
  meaning:
    "A JWKS file instead of a URL. Exclusive with `AUTH_JWKS_URL`. Read at start (the server does not " +
    "start without it) and again every `AUTH_JWKS_FILE_POLL_MS`: keys rotated in it are used without a " +
    "restart. A change that cannot be used (unreadable, not a JWKS, no key) keeps the keys in use and logs a warning.",
});

export const AUTH_JWKS_FILE_POLL_MS = integerSetting({
  name: "AUTH_JWKS_FILE_POLL_MS",
  fallback: 5000,
  min: 100,
  max: 600_000,
  meaning:
    "With `AUTH_JWKS_FILE`: how often the file is read again. A key added to or removed from it verifies, " +
    "or stops verifying, tokens within this time (for a mounted Kubernetes Secret, once kubelet has " +
    "updated the volume: see [Rotating the signing keys](operations.md#rotating-the-signing-keys)).",
});

export const AUTH_ISSUER = textSetting({
  name: "AUTH_ISSUER",
  default: `\`${DEVELOPMENT_ISSUER}\` in development mode`,
  values: "text",
  meaning: "Required `iss` of access tokens (required with a JWKS).",
});

export const AUTH_AUDIENCE = textSetting({
  name: "AUTH_AUDIENCE",
  default: `\`${DEVELOPMENT_AUDIENCE}\` in development mode`,
  values: "text",
  meaning: "Required `aud` of access tokens (required with a JWKS).",
});

export const AUTH_CLOCK_TOLERANCE_SECONDS = integerSetting({
  name: "AUTH_CLOCK_TOLERANCE_SECONDS",
  fallback: 30,
  min: 0,
  max: 300,
  meaning:
    "Leeway for `exp`, `nbf` and `iat`. A token without `exp` is refused (RFC 9068), as is one whose " +
    "`iat` lies further in the future than this.",
});

export const AUTH_USER_CLAIM = textSetting({
  name: "AUTH_USER_CLAIM",
  fallback: "sub",
  values: "a claim's name",
  meaning: "Claim holding the user id (a UUID).",
});

export const AUTH_ORG_CLAIM = textSetting({
  name: "AUTH_ORG_CLAIM",
  fallback: "org_id",
  values: "a claim's name",
  meaning: "Claim holding the organisation id (a UUID).",
});

export const AUTH_TOKEN_URL = textSetting({
  name: "AUTH_TOKEN_URL",
  values: "an `http://` or `https://` URL",
  meaning:
    "The issuer's OAuth 2.0 token endpoint, named in the OpenAPI document (client-credentials flow " +
    "with the API's scopes). Unset with a JWKS: the document describes a plain bearer token. " +
    "Development mode uses its own `/oauth/token`.",
});

export const AUTH_TOKEN_CACHE_SIZE = integerSetting({
  name: "AUTH_TOKEN_CACHE_SIZE",
  fallback: 10_000,
  min: 0,
  max: 1_000_000,
  meaning:
    "Verified access tokens remembered (least recently used dropped first), so a reused token is not " +
    "verified again; `0` turns this off. One is served only before its `exp` (no clock tolerance) and " +
    "while its signing key is in the JWKS. A key removed from a JWKS URL's set still verifies tokens, " +
    "cached or not, until the next fetch: at most 10 min after the last one.",
});

/** How access tokens are verified. */
export const authSettings: SettingGroup = {
  title: "Authentication",
  settings: [
    AUTH_JWKS_URL,
    AUTH_JWKS_COOLDOWN_SECONDS,
    AUTH_JWKS_FILE,
    AUTH_JWKS_FILE_POLL_MS,
    AUTH_ISSUER,
    AUTH_AUDIENCE,
    AUTH_ALGORITHMS,
    AUTH_CLOCK_TOLERANCE_SECONDS,
    AUTH_USER_CLAIM,
    AUTH_ORG_CLAIM,
    AUTH_TOKEN_URL,
    AUTH_TOKEN_CACHE_SIZE,
    DEVELOPMENT_MODE_REMOTE_DATABASE,
  ],
};

/**
 * Reads the AUTH_* variables: a JWKS (URL or file) or development mode, only when asked for (see
 * {@link checkDevelopmentMode}) on the database of `databaseUrl`, and the token rules.
 */
export function loadAuthConfig(env: Env, databaseUrl: string | undefined): AuthConfig {
  const jwksUrl = text(env, AUTH_JWKS_URL);
  const jwksFile = text(env, AUTH_JWKS_FILE);
  if (jwksUrl !== undefined && jwksFile !== undefined) {
    throw new ConfigError("AUTH_JWKS_URL", "and AUTH_JWKS_FILE are exclusive: set one");
  }
  const development = jwksUrl === undefined && jwksFile === undefined;
  checkDevelopmentMode(env, databaseUrl, development);
  if (jwksUrl !== undefined && !/^https?:\/\//.test(jwksUrl)) {
    throw new ConfigError("AUTH_JWKS_URL", "must be an http(s) URL");
  }
  const issuer = text(env, AUTH_ISSUER);
  const audience = text(env, AUTH_AUDIENCE);
  if (!development && issuer === undefined) throw new ConfigError("AUTH_ISSUER", "is required with a JWKS");
  if (!development && audience === undefined)
    throw new ConfigError("AUTH_AUDIENCE", "is required with a JWKS");
  const rules: TokenRules = {
    issuer: issuer ?? DEVELOPMENT_ISSUER,
    audience: audience ?? DEVELOPMENT_AUDIENCE,
    algorithms: loadAlgorithms(env),
    clockToleranceSeconds: integer(env, AUTH_CLOCK_TOLERANCE_SECONDS),
    userClaim: text(env, AUTH_USER_CLAIM),
    orgClaim: text(env, AUTH_ORG_CLAIM),
    tokenUrl: text(env, AUTH_TOKEN_URL),
    tokenCacheSize: integer(env, AUTH_TOKEN_CACHE_SIZE),
  };
  if (rules.tokenUrl !== undefined && !/^https?:\/\//.test(rules.tokenUrl)) {
    throw new ConfigError("AUTH_TOKEN_URL", "must be an http(s) URL");
  }
  if (jwksUrl !== undefined) {
    const jwksCooldownSeconds = integer(env, AUTH_JWKS_COOLDOWN_SECONDS);
    return { mode: "jwks", jwksUrl, jwksCooldownSeconds, ...rules };
  }
  if (jwksFile !== undefined) {
    const jwksFilePollMs = integer(env, AUTH_JWKS_FILE_POLL_MS);
    return { mode: "jwks", jwksFile: resolve(jwksFile), jwksFilePollMs, ...rules };
  }
  return { mode: "development", ...rules };
}
