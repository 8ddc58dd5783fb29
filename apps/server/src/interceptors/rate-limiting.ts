import { createRateLimiter, type RateLimiter } from "@folio/rate-limit";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { REDIS_URL } from "../config/rate-limit.js";
import { redactUrl } from "../config/redact-url.js";
import { StartupError } from "../config/variables.js";
import type { Config } from "../env.js";

/** The configured rate limiter (none when limits are off) and the Redis it counts in, if any. */
export interface RateLimiting {
  readonly limiter: RateLimiter | undefined;
  close(): Promise<void>;
}

/** The rate limiter of the configuration: none, in memory, or in the Redis of REDIS_URL. */
export async function createRateLimiting(config: Config, logger: Logger): Promise<RateLimiting> {
  const { orgRequests, tokenRequests, windowSeconds, redisUrl } = config.rateLimit;
  if (orgRequests === 0) {
    logger.warn("rate limiting is off (RATE_LIMIT_ORG_REQUESTS=0)");
    return { limiter: undefined, close: async () => undefined };
  }
  let redis: Redis | undefined;
  if (redisUrl !== undefined) {
    // Loaded only when used: without REDIS_URL the server does not need the client.
    const { Redis } = await import("ioredis");
    // Commands fail fast rather than queue while Redis is away: the limiter then lets calls through.
    redis = new Redis(redisUrl, { lazyConnect: true, commandTimeout: 1000, maxRetriesPerRequest: 1 });
    // At start a failure stops the start (below), in one line; later ones are logged.
    let starting = true;
    let startFailure: unknown;
    redis.on("error", (error: unknown) => {
      if (starting) startFailure ??= error;
      else logger.warn({ err: error }, "redis error");
    });
    try {
      await redis.connect();
      starting = false;
    } catch (error) {
      redis.disconnect();
      // connect() rejects with "Connection is closed."; the error event said why.
      const reason = startFailure ?? error;
      throw new StartupError(
        REDIS_URL.name,
        `(${redactUrl(redisUrl)}) cannot be reached: ${reason instanceof Error ? reason.message : String(reason)}`,
      );
    }
  }
  const limiter = createRateLimiter({
    rules: {
      org: { name: "org", points: orgRequests, durationSeconds: windowSeconds },
      token: { name: "token", points: tokenRequests, durationSeconds: windowSeconds },
    },
    ...(redis === undefined ? {} : { redis }),
  });
  logger.info(
    { orgRequests, tokenRequests, windowSeconds, store: redis === undefined ? "memory" : "redis" },
    "rate limits",
  );
  return {
    limiter,
    async close() {
      await limiter.close();
      redis?.disconnect();
    },
  };
}
