import { randomUUID } from "node:crypto";
import { Socket } from "node:net";
import { documentOperations, type OpenApiDocument, type ResponseObject } from "@folio/openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFolder, listProjects, VIAS } from "./api.js";
import { startTestServer, type TestServer } from "./harness.js";

/** Per token 3 calls a minute, per org 5. */
const LIMITS = {
  RATE_LIMIT_TOKEN_REQUESTS: "3",
  RATE_LIMIT_ORG_REQUESTS: "5",
  RATE_LIMIT_WINDOW_SECONDS: "60",
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(LIMITS);
});
afterAll(async () => {
  await server?.close();
});

describe.each(VIAS)("rate limits over %s", (via) => {
  it("counts per token and per org, and refuses with 429 resource_exhausted, Retry-After and RateLimit-*", async () => {
    const orgId = randomUUID();
    const [first, second] = await Promise.all([
      server.issuer.sign({ org_id: orgId }),
      server.issuer.sign({ org_id: orgId }),
    ]);
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await listProjects(server, via, {}, { token: first as string });
      expect(outcome.code).toBe("ok");
      expect(outcome.headers.get("ratelimit-limit")).toBe("3");
      remaining.push(outcome.headers.get("ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await listProjects(server, via, {}, { token: first as string });
    expect(refused.code).toBe("resource_exhausted");
    if (via === "rest") {
      expect(refused.status).toBe(429);
      expect(Object.keys(refused.json?.error as object)).toEqual(["code", "message", "requestId", "details"]);
    }
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-policy")).toMatch(/;w=60/);

    // The org's second token has its own 3, but the org only 2 left of its 5.
    expect((await listProjects(server, via, {}, { token: second as string })).code).toBe("ok");
    expect((await listProjects(server, via, {}, { token: second as string })).code).toBe("ok");
    const orgRefused = await listProjects(server, via, {}, { token: second as string });
    expect(orgRefused.code).toBe("resource_exhausted");
    expect(orgRefused.headers.get("ratelimit-limit")).toBe("5");

    // Another org is not affected.
    expect((await listProjects(server, via, {}, { token: await server.issuer.sign() })).code).toBe("ok");
  });

  it("gives a token's respellings no limit of their own: each is 401, the token's own count goes on", async () => {
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(signature.at(-1) as string);
    const respellings = [`${signature}==`, `${signature.slice(0, -1)}${alphabet[last + 1]}`].map(
      (spelling) => `${header}.${payload}.${spelling}`,
    );
    for (let i = 0; i < 3; i++) expect((await listProjects(server, via, {}, { token })).code).toBe("ok");
    expect((await listProjects(server, via, {}, { token })).code).toBe("resource_exhausted");
    for (const respelled of respellings) {
      const outcome = await listProjects(server, via, {}, { token: respelled });
      expect(outcome.code).toBe("unauthenticated");
      if (via === "rest") expect(outcome.status).toBe(401);
    }
  });

  it("changes nothing for a refused create", async () => {
    const orgId = randomUUID();
    const token = await server.issuer.sign({ org_id: orgId });
    for (let i = 0; i < 3; i++)
      expect((await createFolder(server, via, { name: `F${i}` }, { token })).code).toBe("ok");
    expect((await createFolder(server, via, { name: "F3" }, { token })).code).toBe("resource_exhausted");
    const rows = await server.sql("select name from folders where org_id = $1 order by name", [orgId]);
    expect(rows.map((r) => r.name)).toEqual(["F0", "F1", "F2"]);
  });

  it("counts a request that breaks the rules, and refuses one past the limit with 429 before reading it", async () => {
    const orgId = randomUUID();
    const token = await server.issuer.sign({ org_id: orgId });
    const bad = { name: "..", color: "blue" };
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const refused = await createFolder(server, via, bad, { token });
      expect(refused.code).toBe("invalid_argument");
      expect(refused.fieldViolations).toEqual(["name", "color"]);
      remaining.push(refused.headers.get("ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const limited = await createFolder(server, via, bad, { token });
    expect(limited.code).toBe("resource_exhausted");
    if (via === "rest") expect(limited.status).toBe(429);
    expect(limited.fieldViolations).toEqual([]);
  });

  it("does not count calls that fail authentication", async () => {
    const orgId = randomUUID();
    for (let i = 0; i < 5; i++)
      expect((await listProjects(server, via, {}, { token: "not-a-token" })).code).toBe("unauthenticated");
    expect(
      (await listProjects(server, via, {}, { token: await server.issuer.sign({ org_id: orgId }) })).code,
    ).toBe("ok");
  });
});

/** Whether Redis answers on the URL's port; in CI it must. */
async function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(Number(port || 6379), hostname);
  });
}

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const withRedis = process.env.CI === "true" || (await redisReachable(REDIS_URL));

describe.skipIf(!withRedis)("rate limits with REDIS_URL", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startTestServer({ ...LIMITS, REDIS_URL }),
      startTestServer({ ...LIMITS, REDIS_URL }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it("shares one limit between two server instances", async () => {
    // Both instances must accept the token: b trusts a's issuer through its own JWKS file, so the
    // token is signed by each server's issuer for the same org and user.
    const orgId = randomUUID();
    const userId = randomUUID();
    const onA = await a.issuer.sign({ org_id: orgId, sub: userId });
    expect((await listProjects(a, "rest", {}, { token: onA })).code).toBe("ok");
    expect((await listProjects(a, "rest", {}, { token: onA })).code).toBe("ok");
    const onB = await b.issuer.sign({ org_id: orgId, sub: userId });
    // Another token, same org: 2 of the org's 5 are gone on instance a.
    for (let i = 0; i < 3; i++) expect((await listProjects(b, "rest", {}, { token: onB })).code).toBe("ok");
    const refused = await listProjects(b, "connect", {}, { token: onB });
    expect(refused.code).toBe("resource_exhausted");
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    const orgRefused = await listProjects(a, "rest", {}, { token: await a.issuer.sign({ org_id: orgId }) });
    expect(orgRefused.code).toBe("resource_exhausted");
    expect(orgRefused.headers.get("ratelimit-limit")).toBe("5");
  });
});

describe("the served OpenAPI document", () => {
  it("lists the errors of every operation with the envelope, and 429 with the rate-limit headers", async () => {
    const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
    const operations = documentOperations(document);
    expect(operations.map(({ path }) => path)).toEqual(expect.arrayContaining(["/folders", "/projects"]));
    for (const { path, operation } of operations) {
      const responses = operation.responses as Record<string, ResponseObject>;
      const errors = Object.keys(responses).filter((status) => Number(status) >= 400);
      // Every operation is rate limited: its 429 is documented, with the headers below.
      expect(errors, path).toContain("429");
      for (const status of errors) {
        expect(responses[status]?.content, `${path} ${status}`).toEqual({
          "application/json": expect.objectContaining({
            schema: { $ref: "#/components/schemas/ErrorEnvelope" },
          }),
        });
      }
      expect(Object.keys(responses["429"]?.headers ?? {})).toEqual(
        expect.arrayContaining(["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]),
      );
    }
    const conflict = document.paths["/folders"]?.post?.responses["409"] as ResponseObject | undefined;
    expect(Object.keys(conflict?.headers ?? {})).toContain("Retry-After");
  });
});
