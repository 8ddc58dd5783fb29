import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createRateLimiter, type RateLimiterOptions } from "../src/index.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
// Every run writes under its own prefix, so parallel runs against one Redis never collide.
const keyPrefix = `folio:rl:test:${randomUUID()}`;
const rules: RateLimiterOptions["rules"] = {
  org: { name: "org", points: 5, durationSeconds: 60 },
  token: { name: "token", points: 3, durationSeconds: 60 },
};

/** A client of the test Redis, as each server instance would have its own. */
function connect(): Redis {
  return new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 1 });
}

/** Whether the test Redis answers; only outside CI may its absence skip the tests. */
async function reachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, retryStrategy: () => null });
  probe.on("error", () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const skip = !(await reachable()) && process.env.CI !== "true";

describe.skipIf(skip)(`createRateLimiter with Redis (${REDIS_URL})`, () => {
  const clients: Redis[] = [];
  const client = async () => {
    const redis = connect();
    clients.push(redis);
    await redis.connect();
    return redis;
  };

  afterAll(async () => {
    const redis = clients[0];
    if (redis !== undefined) {
      const keys = await redis.keys(`${keyPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await Promise.all(clients.map((c) => c.quit()));
  });

  it("shares one limit between two server instances", async () => {
    const a = createRateLimiter({ rules, keyPrefix, redis: await client() });
    const b = createRateLimiter({ rules, keyPrefix, redis: await client() });
    const keys = { org: randomUUID(), token: randomUUID() };
    const viaA = [];
    for (let i = 0; i < 3; i++) viaA.push(await a.consume(keys));
    expect(viaA.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    const viaB = await b.consume(keys);
    expect(viaB).toMatchObject({ allowed: false, policy: "token", remaining: 0 });
    expect(viaB.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(viaB.retryAfterSeconds).toBeLessThanOrEqual(60);
    await Promise.all([a.close(), b.close()]);
  });

  it("counts an organisation's tokens together across instances", async () => {
    const a = createRateLimiter({ rules, keyPrefix, redis: await client() });
    const b = createRateLimiter({ rules, keyPrefix, redis: await client() });
    const org = randomUUID();
    const token = () => randomUUID();
    for (let i = 0; i < 5; i++) {
      expect((await (i % 2 === 0 ? a : b).consume({ org, token: token() })).allowed).toBe(true);
    }
    expect(await b.consume({ org, token: token() })).toMatchObject({
      allowed: false,
      policy: "org",
      limit: 5,
    });
  });

  it("keeps expiring counters under the prefix, keyed by the token's id", async () => {
    const redis = await client();
    const limiter = createRateLimiter({ rules, keyPrefix, redis });
    const org = randomUUID();
    const tokenId = randomUUID();
    await limiter.consume({ org, token: tokenId });
    expect(await redis.get(`${keyPrefix}:org:${org}`)).toBe("1");
    expect(await redis.get(`${keyPrefix}:token:${tokenId}`)).toBe("1");
    const ttl = await redis.pttl(`${keyPrefix}:org:${org}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe("createRateLimiter with Redis unreachable", () => {
  it("rejects at once instead of waiting for a reconnect", async () => {
    // Port 1 refuses connections: ioredis keeps reconnecting, the limiter must not wait for it.
    // With no retry limit per request, a command sent now would wait in ioredis's offline queue
    // for as long as Redis is away: a limiter that waited would never answer.
    const redis = new Redis("redis://127.0.0.1:1", { lazyConnect: true, maxRetriesPerRequest: null });
    redis.on("error", () => undefined);
    redis.connect().catch(() => undefined);
    try {
      const limiter = createRateLimiter({ rules, keyPrefix, redis });
      // At once is a few ms; the bound allows for a loaded machine, and is still far from forever.
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        limiter.consume({ org: "o", token: "t" }).then(
          () => "allowed",
          (error: unknown) => String(error),
        ),
        new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve("still waiting after 5 s"), 5_000);
        }),
      ]);
      clearTimeout(timer);
      expect(outcome).toContain("Redis connection is not ready");
    } finally {
      redis.disconnect();
    }
  });
});
