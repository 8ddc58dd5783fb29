import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createRateLimiter, type RateLimitDecision, type RateLimiter } from "../src/index.js";

/** A limiter in memory with the given quotas. */
function memoryLimiter(org: [number, number], token: [number, number]): RateLimiter {
  return createRateLimiter({
    rules: {
      org: { name: "org", points: org[0], durationSeconds: org[1] },
      token: { name: "token", points: token[0], durationSeconds: token[1] },
    },
  });
}

/** Calls `consume` `times` times in sequence and returns every decision. */
async function consumeTimes(limiter: RateLimiter, org: string, token: string, times: number) {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < times; i++) decisions.push(await limiter.consume({ org, token: token }));
  return decisions;
}

describe("createRateLimiter in memory", () => {
  it("allows N calls, then refuses with a retry delay of at least a second", async () => {
    const limiter = memoryLimiter([100, 60], [3, 60]);
    const decisions = await consumeTimes(limiter, randomUUID(), "token-a", 4);
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const refused = decisions[3]!;
    expect(refused).toMatchObject({ policy: "token", limit: 3, windowSeconds: 60 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(decisions[0]!.retryAfterSeconds).toBeUndefined();
  });

  it("counts two tokens of one organisation against the same organisation quota", async () => {
    const limiter = memoryLimiter([3, 60], [100, 60]);
    const org = randomUUID();
    expect((await consumeTimes(limiter, org, "token-a", 2)).every((d) => d.allowed)).toBe(true);
    const [third, fourth] = await consumeTimes(limiter, org, "token-b", 2);
    expect(third).toMatchObject({ allowed: true, policy: "org", remaining: 0 });
    expect(fourth).toMatchObject({ allowed: false, policy: "org", limit: 3 });
  });

  it("does not let one exhausted token block a token of another organisation", async () => {
    const limiter = memoryLimiter([100, 60], [2, 60]);
    const exhausted = await consumeTimes(limiter, randomUUID(), "token-a", 3);
    expect(exhausted[2]).toMatchObject({ allowed: false, policy: "token" });
    const [other] = await consumeTimes(limiter, randomUUID(), "token-b", 1);
    expect(other).toMatchObject({ allowed: true, policy: "token", remaining: 1 });
  });

  it("does not charge the organisation for calls its exhausted token had refused", async () => {
    const limiter = memoryLimiter([4, 60], [2, 60]);
    const org = randomUUID();
    const a = await consumeTimes(limiter, org, "token-a", 7);
    expect(a.filter((d) => d.allowed)).toHaveLength(2);
    // Had the 5 refusals been charged, the organisation's 4 points would be gone.
    const b = await consumeTimes(limiter, org, "token-b", 2);
    expect(b.map((d) => d.allowed)).toEqual([true, true]);
    const [c] = await consumeTimes(limiter, org, "token-c", 1);
    expect(c).toMatchObject({ allowed: false, policy: "org" });
  });

  it("reports the policy with the fewest points left", async () => {
    const byToken = await consumeTimes(memoryLimiter([10, 60], [3, 30]), randomUUID(), "t", 1);
    expect(byToken[0]).toMatchObject({ policy: "token", limit: 3, remaining: 2, windowSeconds: 30 });
    expect(byToken[0]!.resetSeconds).toBeGreaterThan(0);
    expect(byToken[0]!.resetSeconds).toBeLessThanOrEqual(30);
    const byOrg = await consumeTimes(memoryLimiter([2, 60], [10, 60]), randomUUID(), "t", 1);
    expect(byOrg[0]).toMatchObject({ policy: "org", limit: 2, remaining: 1 });
  });

  it("asks to wait for the longer window when both quotas are exceeded", async () => {
    const orgLonger = await consumeTimes(memoryLimiter([1, 600], [1, 5]), randomUUID(), "t", 2);
    expect(orgLonger[1]).toMatchObject({ allowed: false, policy: "org" });
    expect(orgLonger[1]!.retryAfterSeconds).toBeGreaterThan(5);
    const tokenLonger = await consumeTimes(memoryLimiter([1, 5], [1, 600]), randomUUID(), "t", 2);
    expect(tokenLonger[1]).toMatchObject({ allowed: false, policy: "token" });
    expect(tokenLonger[1]!.retryAfterSeconds).toBeGreaterThan(5);
  });

  it("allows calls again once the window has passed", async () => {
    const limiter = memoryLimiter([100, 1], [2, 1]);
    const org = randomUUID();
    const first = await consumeTimes(limiter, org, "t", 3);
    expect(first.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(first[2]!.retryAfterSeconds).toBe(1);
    await sleep(1_100);
    const [again] = await consumeTimes(limiter, org, "t", 1);
    expect(again).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("refuses rules that cannot work", () => {
    const ok = { name: "org", points: 1, durationSeconds: 1 };
    const make = (token: { name: string; points: number; durationSeconds: number }) => () =>
      createRateLimiter({ rules: { org: ok, token } });
    expect(make({ name: "token", points: 0, durationSeconds: 1 })).toThrow("invalid rate-limit rule");
    expect(make({ name: "token", points: 1, durationSeconds: 0.5 })).toThrow("invalid rate-limit rule");
    expect(make({ name: "org", points: 1, durationSeconds: 1 })).toThrow("distinct names");
    expect(make({ name: "token", points: 1, durationSeconds: 1 })).not.toThrow();
  });

  it("refuses calls after close", async () => {
    const limiter = memoryLimiter([1, 60], [1, 60]);
    await limiter.close();
    await expect(limiter.consume({ org: "o", token: "t" })).rejects.toThrow("rate limiter is closed");
  });
});
