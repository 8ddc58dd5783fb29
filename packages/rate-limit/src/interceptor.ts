import {
  Code,
  ConnectError,
  type Interceptor,
  type StreamRequest,
  type UnaryRequest,
} from "@connectrpc/connect";
import type { RateLimitDecision, RateLimiter, RateLimitKeys, RateLimitRule } from "./limiter.js";

/** Options of {@link createRateLimitInterceptor}. */
export interface RateLimitInterceptorOptions {
  /** Counts the calls; see {@link createRateLimiter}. */
  readonly limiter: Pick<RateLimiter, "consume" | "rules">;
  /**
   * Who the call is charged to, read from what authentication put into the context values;
   * `undefined` leaves the call unlimited.
   */
  readonly keys: (req: UnaryRequest | StreamRequest) => RateLimitKeys | undefined;
  /** Told when the limiter itself fails (the call then proceeds unlimited): log it, alert on it. */
  readonly onError?: (error: unknown) => void;
  /** Told of each refused call, with the decision (its `policy` names the exhausted quota): count it. */
  readonly onRefused?: (decision: RateLimitDecision) => void;
}

/**
 * Limits every call per organisation and per access token. Place it after the auth interceptor
 * (`interceptors: [auth, rateLimit]`), since it charges the caller authentication established.
 *
 * Allowed calls carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and
 * `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-06); refused ones fail with
 * `resource_exhausted` (HTTP 429) and the same headers plus `Retry-After`.
 *
 * Fails open: when the limiter fails (Redis unreachable), the call proceeds without limit and
 * `onError` hears of it. Failing closed would turn a Redis outage into an outage of the whole API;
 * failing open only suspends a protection, and `onError` keeps that from happening silently.
 */
export function createRateLimitInterceptor(options: RateLimitInterceptorOptions): Interceptor {
  const onError = options.onError ?? (() => undefined);
  return (next) => async (req) => {
    const keys = options.keys(req);
    if (keys === undefined) return next(req);
    let decision: RateLimitDecision;
    try {
      decision = await options.limiter.consume(keys);
    } catch (error) {
      onError(error);
      return next(req);
    }
    const headers = rateLimitHeaders(decision, options.limiter.rules);
    if (!decision.allowed) {
      options.onRefused?.(decision);
      const wait = decision.retryAfterSeconds ?? 1;
      headers.set("retry-after", String(wait));
      throw new ConnectError(
        `rate limit exceeded: ${decision.policy} quota of ${decision.limit} calls per ${decision.windowSeconds}s, retry in ${wait}s`,
        Code.ResourceExhausted,
        headers,
      );
    }
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (error) {
      // The call counted, so the client should learn its quota from a failed call too.
      if (error instanceof ConnectError) {
        for (const [name, value] of headers) error.metadata.set(name, value);
      }
      throw error;
    }
    for (const [name, value] of headers) res.header.set(name, value);
    return res;
  };
}

/** The draft-06 three-header form, plus `RateLimit-Policy` listing every policy, the reported first. */
function rateLimitHeaders(decision: RateLimitDecision, rules: readonly RateLimitRule[]): Headers {
  const reported = `${decision.limit};w=${decision.windowSeconds}`;
  const others = rules
    .filter((rule) => rule.name !== decision.policy)
    .map((rule) => `${rule.points};w=${rule.durationSeconds}`);
  return new Headers({
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(decision.resetSeconds),
    "ratelimit-policy": [...new Set([reported, ...others])].join(", "),
  });
}
