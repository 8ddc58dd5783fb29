/**
 * Rate limits for Folio's Connect services: a quota per organisation and one per access token,
 * counted in memory or, when several server instances must share them, in Redis.
 */
export {
  createRateLimitGate,
  createRateLimitInterceptor,
  type RateLimitInterceptorOptions,
} from "./interceptor.js";
export {
  createRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitKeys,
  type RateLimitRule,
} from "./limiter.js";
