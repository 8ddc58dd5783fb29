import { ConfigError, type Env, integer, text } from "./variables.js";

/** Requests allowed per window, per organisation and per access token; both 0 turns limits off. */
export interface RateLimitConfig {
  readonly orgRequests: number;
  readonly tokenRequests: number;
  readonly windowSeconds: number;
  /** Redis shared by every instance; undefined: counted in this process's memory. */
  readonly redisUrl: string | undefined;
}

/** Reads the RATE_LIMIT_* variables and REDIS_URL. */
export function loadRateLimitConfig(env: Env): RateLimitConfig {
  const redisUrl = text(env, "REDIS_URL");
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError("REDIS_URL", "must be a redis:// or rediss:// URL");
  }
  const orgRequests = integer(env, "RATE_LIMIT_ORG_REQUESTS", 6000, 0, 100_000_000);
  const tokenRequests = integer(env, "RATE_LIMIT_TOKEN_REQUESTS", 1200, 0, 100_000_000);
  if ((orgRequests === 0) !== (tokenRequests === 0)) {
    // Half a limit is more likely a typo than a wish: turning limits off takes both.
    throw new ConfigError(
      orgRequests === 0 ? "RATE_LIMIT_ORG_REQUESTS" : "RATE_LIMIT_TOKEN_REQUESTS",
      "is 0 (off) while the other rate limit is on: set both to 0 to turn rate limiting off",
    );
  }
  return {
    orgRequests,
    tokenRequests,
    windowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1, 86_400),
    redisUrl,
  };
}
