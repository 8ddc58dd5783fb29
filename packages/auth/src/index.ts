/**
 * Bearer-token authentication for Folio's Connect services: token verification with jose, scope
 * checks declared per method, and the caller context that every handler reads.
 */
export { type Caller, callerKey, requireCaller } from "./caller.js";
export {
  type DevelopmentIssuer,
  loadDevelopmentIssuer,
  type TokenClaims,
} from "./development.js";
export {
  type AuthInterceptorOptions,
  assertEveryMethodHasScope,
  createAuthGate,
  createAuthInterceptor,
} from "./interceptor.js";
export { DEFAULT_JWKS_FILE_POLL_MS, DEFAULT_JWKS_MAX_AGE_MS } from "./key-set.js";
export type { KeySetEvent, KeySetListener } from "./key-set-loading.js";
export { isUuid } from "./uuid.js";
export { DEFAULT_TOKEN_CACHE_MAX_ENTRIES } from "./verified-token-cache.js";
export {
  type AccessTokenVerifier,
  type AccessTokenVerifierOptions,
  createAccessTokenVerifier,
  DEFAULT_ALGORITHMS,
  InvalidTokenError,
  KeySetUnavailableError,
  type KeySource,
} from "./verify.js";
