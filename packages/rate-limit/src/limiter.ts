import type { Cluster, Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";

/** One quota: `points` calls per fixed window of `durationSeconds`. */
export interface RateLimitRule {
  /** Names the policy in decisions and errors, and namespaces its keys; `org` and `token` by default. */
  readonly name: string;
  /** Calls allowed per window (a positive integer). */
  readonly points: number;
  /** Length of the window in seconds (a positive integer). */
  readonly durationSeconds: number;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** The quota of each organisation, and the (usually smaller) quota of each access token. */
  readonly rules: { readonly org: RateLimitRule; readonly token: RateLimitRule };
  /**
   * Shares the counters between server instances. Absent: counters live in this process only. Calls
   * made before the client is ready fail (and the interceptor lets them through), so connect it
   * before serving. The client stays the caller's: {@link RateLimiter.close} does not quit it.
   */
  readonly redis?: Redis | Cluster;
  /** Prefix of every key, so that several deployments can share one Redis; default `folio:rl`. */
  readonly keyPrefix?: string;
}

/** Who a call is charged to. */
export interface RateLimitKeys {
  /** The organisation's id. */
  readonly org: string;
  /** The access token's id (a digest such as `Caller.tokenId` of @folio/auth, never the raw token). */
  readonly token: string;
}

/** The outcome of one {@link RateLimiter.consume}, for the most restrictive of the two policies. */
export interface RateLimitDecision {
  /** Whether the call may proceed. */
  readonly allowed: boolean;
  /** Points per window of the reported policy. */
  readonly limit: number;
  /** Points left in the current window of the reported policy (0 when refused). */
  readonly remaining: number;
  /** Seconds until the reported policy's window resets. */
  readonly resetSeconds: number;
  /** Seconds to wait before retrying (at least 1); set only when refused. */
  readonly retryAfterSeconds?: number;
  /** Name of the reported policy (`RateLimitRule.name`). */
  readonly policy: string;
  /** Window of the reported policy in seconds, for `RateLimit-Policy`. */
  readonly windowSeconds: number;
}

/** Counts calls per organisation and per access token. */
export interface RateLimiter {
  /** The policies applied, organisation first; the interceptor advertises them all. */
  readonly rules: readonly RateLimitRule[];
  /**
   * Charges one point to the organisation and one to the token and reports the most restrictive
   * outcome. Rejects when the store fails (Redis down), so that the caller chooses what that means.
   */
  consume(keys: RateLimitKeys): Promise<RateLimitDecision>;
  /** Refuses further calls and waits for those under way; the Redis client is left to its owner. */
  close(): Promise<void>;
}

/** What one policy answered: allowed or refused, with its counter. */
interface Outcome {
  readonly rule: RateLimitRule;
  readonly limiter: RateLimiterAbstract;
  readonly key: string;
  readonly allowed: boolean;
  readonly res: RateLimiterRes;
}

/** Creates a rate limiter on rate-limiter-flexible: in memory, or in Redis when `redis` is given. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { org, token } = options.rules;
  assertRule(org);
  assertRule(token);
  if (org.name === token.name) {
    // One name would put both counters under one key prefix.
    throw new Error(`rate-limit rules need distinct names, both are "${org.name}"`);
  }
  const keyPrefix = options.keyPrefix ?? "folio:rl";
  const build = (rule: RateLimitRule): RateLimiterAbstract => {
    const common = {
      keyPrefix: `${keyPrefix}:${rule.name}`,
      points: rule.points,
      duration: rule.durationSeconds,
    };
    if (options.redis === undefined) return new RateLimiterMemory(common);
    // Without rejectIfRedisNotReady, ioredis queues commands while it reconnects and every call
    // would hang until its retries run out; failing at once lets the caller fail open quickly.
    return new RateLimiterRedis({ ...common, storeClient: options.redis, rejectIfRedisNotReady: true });
  };
  const orgLimiter = build(org);
  const tokenLimiter = build(token);
  const pending = new Set<Promise<RateLimitDecision>>();
  let closed = false;

  const charge = async (rule: RateLimitRule, limiter: RateLimiterAbstract, key: string): Promise<Outcome> => {
    try {
      return { rule, limiter, key, allowed: true, res: await limiter.consume(key, 1) };
    } catch (error) {
      // rate-limiter-flexible rejects with the counter when over the limit, with an Error when the
      // store fails.
      if (error instanceof RateLimiterRes) return { rule, limiter, key, allowed: false, res: error };
      throw error;
    }
  };

  const consume = async (keys: RateLimitKeys): Promise<RateLimitDecision> => {
    // Both in parallel: one round trip to Redis on the common path.
    const outcomes = await Promise.all([
      charge(org, orgLimiter, keys.org),
      charge(token, tokenLimiter, keys.token),
    ]);
    const refused = outcomes.filter((o) => !o.allowed);
    if (refused.length === 1) {
      // A refused call must not use up the other quota: otherwise a client hammering with an
      // exhausted token would drain its organisation's quota and lock out every other token of it.
      // Best effort: a refund that fails only leaves one point charged.
      const other = outcomes.find((o) => o.allowed);
      await other?.limiter.reward(other.key, 1).catch(() => undefined);
    }
    return decide(refused.length > 0 ? refused : outcomes);
  };

  return {
    rules: [org, token],
    consume(keys) {
      if (closed) return Promise.reject(new Error("rate limiter is closed"));
      const call = consume(keys);
      pending.add(call);
      // The caller handles the rejection; this branch only does the bookkeeping.
      call.then(
        () => pending.delete(call),
        () => pending.delete(call),
      );
      return call;
    },
    async close() {
      closed = true;
      await Promise.allSettled(pending);
    },
  };
}

/** Reports the policy the caller is closest to exceeding, or has exceeded for the longest. */
function decide(outcomes: readonly Outcome[]): RateLimitDecision {
  const [first, ...rest] = outcomes as [Outcome, ...Outcome[]];
  const worst = rest.reduce((a, b) => (moreRestrictive(b, a) ? b : a), first);
  const resetSeconds = Math.max(0, Math.ceil(worst.res.msBeforeNext / 1000));
  return {
    allowed: worst.allowed,
    limit: worst.rule.points,
    remaining: worst.allowed ? worst.res.remainingPoints : 0,
    resetSeconds,
    ...(worst.allowed ? {} : { retryAfterSeconds: Math.max(1, resetSeconds) }),
    policy: worst.rule.name,
    windowSeconds: worst.rule.durationSeconds,
  };
}

/** Fewer points left is worse; on a tie (or among refusals), the longer wait is. */
function moreRestrictive(a: Outcome, b: Outcome): boolean {
  if (a.allowed && b.allowed && a.res.remainingPoints !== b.res.remainingPoints) {
    return a.res.remainingPoints < b.res.remainingPoints;
  }
  return a.res.msBeforeNext > b.res.msBeforeNext;
}

/** Throws at start-up on a rule that could never work, rather than limiting wrongly at run time. */
function assertRule(rule: RateLimitRule): void {
  const positiveInteger = (n: number) => Number.isInteger(n) && n > 0;
  if (rule.name === "" || !positiveInteger(rule.points) || !positiveInteger(rule.durationSeconds)) {
    // A zero duration would make rate-limiter-flexible keep the counter forever.
    throw new Error(
      `invalid rate-limit rule ${JSON.stringify(rule)}: needs a name and positive integer points and durationSeconds`,
    );
  }
}
