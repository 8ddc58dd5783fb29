import {
  Code,
  ConnectError,
  type HandlerContext,
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
  const charge = createCharge(options);
  return (next) => async (req) => {
    const headers = await charge(options.keys(req));
    if (headers === undefined) return next(req);
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

/**
 * The same limits as a request gate (connect-es's `requestGate`, run before the body is read):
 * place it after the authentication gate. A call it lets through carries the quota headers on its
 * answer, a failure included (they are the call's response headers).
 */
export function createRateLimitGate(
  options: Omit<RateLimitInterceptorOptions, "keys"> & {
    readonly keys: (context: HandlerContext) => RateLimitKeys | undefined;
  },
): (context: HandlerContext) => Promise<void> {
  const charge = createCharge(options);
  return async (context) => {
    const headers = await charge(options.keys(context));
    if (headers === undefined) return;
    for (const [name, value] of headers) context.responseHeader.set(name, value);
  };
}

/**
 * Charges one call to `keys`: the quota headers of an allowed call, undefined when the call is
 * not limited (no keys, or the limiter failed), and the refusal thrown for a call over a limit.
 */
function createCharge(options: Omit<RateLimitInterceptorOptions, "keys">) {
  const onError = options.onError ?? (() => undefined);
  return async (keys: RateLimitKeys | undefined): Promise<Headers | undefined> => {
    if (keys === undefined) return undefined;
    let decision: RateLimitDecision;
    try {
      decision = await options.limiter.consume(keys);
    } catch (error) {
      onError(error);
      return undefined;
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
    return headers;
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
