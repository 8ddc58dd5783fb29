import {
  ConfigError,
  type Env,
  integer,
  integerSetting,
  type SettingGroup,
  text,
  textSetting,
} from "./variables.js";

/** Requests allowed per window, per organisation and per access token; both 0 turns limits off. */
export interface RateLimitConfig {
  readonly orgRequests: number;
  readonly tokenRequests: number;
  readonly windowSeconds: number;
  /** Redis shared by every instance; undefined: counted in this process's memory. */
  readonly redisUrl: string | undefined;
}

export const RATE_LIMIT_TOKEN_REQUESTS = integerSetting({
  name: "RATE_LIMIT_TOKEN_REQUESTS",
  fallback: 1200,
  min: 0,
  max: 100_000_000,
  meaning: "Requests per window allowed to one access token.",
});

export const RATE_LIMIT_ORG_REQUESTS = integerSetting({
  name: "RATE_LIMIT_ORG_REQUESTS",
  fallback: 6000,
  min: 0,
  max: 100_000_000,
  meaning:
    "Requests per window allowed to one organisation, all its tokens together. Both `0`: rate limiting off.",
});

export const RATE_LIMIT_WINDOW_SECONDS = integerSetting({
  name: "RATE_LIMIT_WINDOW_SECONDS",
  fallback: 60,
  min: 1,
  max: 86_400,
  meaning: "Length of the rate-limit window.",
});

export const REDIS_URL = textSetting({
  name: "REDIS_URL",
  values: "a `redis://` or `rediss://` URL",
  meaning:
    "`redis://` URL: rate-limit counters live in this Redis, shared by every instance. Unset: in the " +
    "process's memory. Start-up fails if it cannot connect; if Redis goes away later, requests are " +
    "served unlimited (and a warning is logged) rather than refused.",
});

/** Per-token and per-organisation rate limits, and where they are counted. */
export const rateLimitSettings: SettingGroup = {
  title: "Rate limits",
  settings: [RATE_LIMIT_TOKEN_REQUESTS, RATE_LIMIT_ORG_REQUESTS, RATE_LIMIT_WINDOW_SECONDS, REDIS_URL],
};

/** Reads the RATE_LIMIT_* variables and REDIS_URL. */
export function loadRateLimitConfig(env: Env): RateLimitConfig {
  const redisUrl = text(env, REDIS_URL);
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError("REDIS_URL", "must be a redis:// or rediss:// URL");
  }
  const orgRequests = integer(env, RATE_LIMIT_ORG_REQUESTS);
  const tokenRequests = integer(env, RATE_LIMIT_TOKEN_REQUESTS);
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
    windowSeconds: integer(env, RATE_LIMIT_WINDOW_SECONDS),
    redisUrl,
  };
}
