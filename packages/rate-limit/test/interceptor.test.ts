import { randomUUID } from "node:crypto";
import {
  Code,
  ConnectError,
  createClient,
  createContextKey,
  createRouterTransport,
  type Interceptor,
} from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { describe, expect, it } from "vitest";
import {
  createRateLimiter,
  createRateLimitInterceptor,
  type RateLimiter,
  type RateLimitInterceptorOptions,
} from "../src/index.js";

/** Stands in for the auth interceptor: the organisation the caller acts for. */
const orgKey = createContextKey<string | undefined>(undefined);
const fakeAuth: Interceptor = (next) => async (req) => {
  const org = req.header.get("x-org");
  if (org !== null) req.contextValues.set(orgKey, org);
  return next(req);
};

const keys: RateLimitInterceptorOptions["keys"] = (req) => {
  const org = req.contextValues.get(orgKey);
  const authorization = req.header.get("authorization");
  return org === undefined || authorization === null ? undefined : { org, token: authorization };
};

/** A ProjectService client over an in-process router: auth, then the rate limit, then the handler. */
function clientWith(
  limiter: Pick<RateLimiter, "consume" | "rules">,
  onError?: (error: unknown) => void,
  onRefused?: RateLimitInterceptorOptions["onRefused"],
) {
  const transport = createRouterTransport(
    (router) => {
      router.service(ProjectService, {
        listProjects(_req, context) {
          if (context.requestHeader.has("x-fail")) throw new ConnectError("no such page", Code.NotFound);
          return {};
        },
      });
    },
    {
      router: { interceptors: [fakeAuth, createRateLimitInterceptor({ limiter, keys, onError, onRefused })] },
    },
  );
  return createClient(ProjectService, transport);
}

const rules = {
  org: { name: "org", points: 5, durationSeconds: 60 },
  token: { name: "token", points: 2, durationSeconds: 30 },
};

/** Calls ListProjects as the given caller; returns the response headers or the error. */
async function call(client: ReturnType<typeof clientWith>, headers: Record<string, string>) {
  let header: Headers | undefined;
  try {
    await client.listProjects({}, { headers, onHeader: (h) => (header = h) });
    return { header: header! };
  } catch (error) {
    return { error: ConnectError.from(error) };
  }
}

describe("createRateLimitInterceptor", () => {
  it("tells an allowed caller its quota in RateLimit headers", async () => {
    const client = clientWith(createRateLimiter({ rules }));
    const { header } = await call(client, { "x-org": randomUUID(), authorization: "Bearer a" });
    expect(header?.get("ratelimit-limit")).toBe("2");
    expect(header?.get("ratelimit-remaining")).toBe("1");
    expect(Number(header?.get("ratelimit-reset"))).toBeGreaterThan(0);
    expect(Number(header?.get("ratelimit-reset"))).toBeLessThanOrEqual(30);
    expect(header?.get("ratelimit-policy")).toBe("2;w=30, 5;w=60");
    expect(header?.has("retry-after")).toBe(false);
  });

  it("refuses an exhausted caller with resource_exhausted and Retry-After", async () => {
    const client = clientWith(createRateLimiter({ rules }));
    const caller = { "x-org": randomUUID(), authorization: "Bearer a" };
    await call(client, caller);
    await call(client, caller);
    const { error } = await call(client, caller);
    expect(error?.code).toBe(Code.ResourceExhausted);
    expect(error?.rawMessage).toMatch(/^rate limit exceeded: token quota of 2 calls per 30s/);
    const retryAfter = error?.metadata.get("retry-after") ?? "";
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(30);
    expect(error?.metadata.get("ratelimit-remaining")).toBe("0");
    expect(error?.metadata.get("ratelimit-limit")).toBe("2");
    expect(error?.metadata.get("ratelimit-policy")).toBe("2;w=30, 5;w=60");
    // Another token of the same organisation still has its own quota.
    const other = await call(client, { ...caller, authorization: "Bearer b" });
    expect(other.error).toBeUndefined();
  });

  it("tells onRefused of each refusal and the policy exhausted, and of nothing else", async () => {
    const refused: string[] = [];
    const client = clientWith(createRateLimiter({ rules }), undefined, (decision) =>
      refused.push(decision.policy),
    );
    const caller = { "x-org": randomUUID(), authorization: "Bearer a" };
    await call(client, caller);
    await call(client, caller);
    expect(refused).toEqual([]);
    await call(client, caller);
    await call(client, caller);
    expect(refused).toEqual(["token", "token"]);
  });

  it("leaves calls without keys unlimited", async () => {
    const client = clientWith(createRateLimiter({ rules }));
    for (let i = 0; i < 4; i++) {
      const { header, error } = await call(client, { authorization: "Bearer a" });
      expect(error).toBeUndefined();
      expect(header?.has("ratelimit-limit")).toBe(false);
    }
  });

  it("adds the RateLimit headers to an error of the handler", async () => {
    const client = clientWith(createRateLimiter({ rules }));
    const { error } = await call(client, { "x-org": randomUUID(), authorization: "Bearer a", "x-fail": "1" });
    expect(error?.code).toBe(Code.NotFound);
    expect(error?.metadata.get("ratelimit-remaining")).toBe("1");
    expect(error?.metadata.get("ratelimit-limit")).toBe("2");
  });

  it("fails open when the limiter fails, and says so", async () => {
    const failure = new Error("Redis connection is not ready");
    const errors: unknown[] = [];
    const broken = { rules: [rules.org, rules.token], consume: () => Promise.reject(failure) };
    const client = clientWith(broken, (error) => errors.push(error));
    const { header, error } = await call(client, { "x-org": randomUUID(), authorization: "Bearer a" });
    expect(error).toBeUndefined();
    expect(header?.has("ratelimit-limit")).toBe(false);
    expect(errors).toEqual([failure]);
  });
});
