import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import { type JSONWebKeySet, jwtVerify } from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type AccessTokenVerifier,
  type AccessTokenVerifierOptions,
  createAccessTokenVerifier,
  InvalidTokenError,
} from "../src/index.js";

// Every full verification goes through jose's jwtVerify: counting its calls tells a cache hit
// (no call) from a verification.
vi.mock("jose", async (importOriginal) => {
  const jose = await importOriginal<typeof import("jose")>();
  return { ...jose, jwtVerify: vi.fn(jose.jwtVerify) };
});
const verifications = vi.mocked(jwtVerify);

let issuer: TestIssuer;
let other: TestIssuer;

beforeAll(async () => {
  issuer = await createTestIssuer("ES256");
  other = await createTestIssuer("ES256");
});
beforeEach(() => {
  // Only Date is faked: jose reads the time from it, and HTTP and sleeps keep running.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now());
  verifications.mockClear();
});
afterEach(() => {
  vi.useRealTimers();
});

const seconds = () => Math.floor(Date.now() / 1000);

async function staticVerifier(options: Partial<AccessTokenVerifierOptions> = {}) {
  return createAccessTokenVerifier({
    keys: { jwks: issuer.jwks },
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    ...options,
  });
}

async function refusal(verify: AccessTokenVerifier, token: string): Promise<string> {
  const error = await verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return (error as Error).message;
}

describe("the verified-token cache", () => {
  it("serves a reused token from the cache: verified once, the same caller every time", async () => {
    const verify = await staticVerifier();
    const token = await issuer.sign();
    const first = await verify(token);
    expect(await verify(token)).toEqual(first);
    expect(await verify(token)).toEqual(first);
    expect(verifications).toHaveBeenCalledTimes(1);
  });

  it("verifies every time with tokenCacheMaxEntries 0", async () => {
    const verify = await staticVerifier({ tokenCacheMaxEntries: 0 });
    const token = await issuer.sign();
    await verify(token);
    await verify(token);
    expect(verifications).toHaveBeenCalledTimes(2);
  });

  it("refuses a cached token once its exp is reached", async () => {
    const verify = await staticVerifier({ clockToleranceSeconds: 0 });
    const exp = seconds() + 2;
    const token = await issuer.sign({ exp });
    await verify(token);
    await verify(token);
    expect(verifications).toHaveBeenCalledTimes(1);

    vi.setSystemTime(exp * 1000);
    expect(await refusal(verify, token)).toBe("token has expired");
  });

  it("never serves a cached token past its exp, even within the clock tolerance", async () => {
    const verify = await staticVerifier({ clockToleranceSeconds: 30 });
    const exp = seconds() + 2;
    const token = await issuer.sign({ exp });
    await verify(token);
    expect(verifications).toHaveBeenCalledTimes(1);

    // jose still accepts it (the tolerance is the verifier's rule), but the cache does not answer
    // for it past exp, nor keep it.
    vi.setSystemTime(exp * 1000 + 1);
    await verify(token);
    await verify(token);
    expect(verifications).toHaveBeenCalledTimes(3);

    vi.setSystemTime((exp + 30) * 1000);
    expect(await refusal(verify, token)).toBe("token has expired");
  });

  it("holds at most tokenCacheMaxEntries tokens: the N+1st evicts the first", async () => {
    const verify = await staticVerifier({ tokenCacheMaxEntries: 3 });
    const tokens = await Promise.all([1, 2, 3, 4].map(() => issuer.sign()));
    for (const token of tokens) await verify(token);
    expect(verifications).toHaveBeenCalledTimes(4);

    // The last three are cached; the first was evicted and is verified again.
    for (const token of tokens.slice(1)) await verify(token);
    expect(verifications).toHaveBeenCalledTimes(4);
    await verify(tokens[0]!);
    expect(verifications).toHaveBeenCalledTimes(5);
  });

  it("evicts the least recently used token, not the oldest", async () => {
    const verify = await staticVerifier({ tokenCacheMaxEntries: 2 });
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => issuer.sign()));
    await verify(a!);
    await verify(b!);
    await verify(a!); // a is now more recent than b
    await verify(c!); // evicts b
    expect(verifications).toHaveBeenCalledTimes(3);
    await verify(a!);
    expect(verifications).toHaveBeenCalledTimes(3);
    await verify(b!);
    expect(verifications).toHaveBeenCalledTimes(4);
  });

  it("never caches a refused token", async () => {
    const verify = await staticVerifier();
    const [header, payload] = (await issuer.sign()).split(".");
    const forged = `${header}.${payload}.${(await other.sign()).split(".")[2]}`;
    expect(await refusal(verify, forged)).toBe("token signature is invalid");
    expect(await refusal(verify, forged)).toBe("token signature is invalid");
    expect(verifications).toHaveBeenCalledTimes(2);
  });

  it("accepts a token refused as not yet valid once its nbf is reached (refusals are not cached)", async () => {
    const verify = await staticVerifier({ clockToleranceSeconds: 0 });
    const nbf = seconds() + 60;
    const token = await issuer.sign({ nbf, exp: nbf + 300 });
    expect(await refusal(verify, token)).toBe("token is not yet valid");
    vi.setSystemTime(nbf * 1000);
    await expect(verify(token)).resolves.toBeDefined();
  });

  it("serves the caller frozen, so one request cannot change what the next is served", async () => {
    const verify = await staticVerifier();
    const caller = await verify(await issuer.sign());
    expect(Object.isFrozen(caller)).toBe(true);
  });

  it("refuses a negative or fractional size", async () => {
    await expect(staticVerifier({ tokenCacheMaxEntries: -1 })).rejects.toThrow(/tokenCacheMaxEntries/);
    await expect(staticVerifier({ tokenCacheMaxEntries: 1.5 })).rejects.toThrow(/tokenCacheMaxEntries/);
  });
});

describe("the verified-token cache with a remote JWKS", () => {
  // The issuer's JWKS over real HTTP on loopback: tests remove keys by changing it.
  let jwks: JSONWebKeySet;
  let status = 200;
  /** Delay between the response's headers and its body: jose applies the set after the body. */
  let bodyDelayMs = 0;
  let fetches = 0;
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      fetches += 1;
      const body = JSON.stringify(jwks);
      res.writeHead(status, { "content-type": "application/json" });
      if (bodyDelayMs === 0) res.end(body);
      else {
        res.flushHeaders();
        setTimeout(() => res.end(body), bodyDelayMs);
      }
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => {
    server?.close();
  });
  beforeEach(() => {
    jwks = { keys: [...issuer.jwks.keys, ...other.jwks.keys] };
    status = 200;
    bodyDelayMs = 0;
    fetches = 0;
  });

  const MAX_AGE = 600_000;
  const REFRESH_AHEAD = 60_000;
  const COOLDOWN = 30_000;

  function remoteVerifier() {
    return createAccessTokenVerifier({
      keys: { jwksUrl: url },
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
      jwksMaxAgeMs: MAX_AGE,
      jwksCooldownMs: COOLDOWN,
    });
  }

  /** Waits (real time) until the JWKS server has answered `count` fetches. */
  async function fetched(count: number) {
    for (let i = 0; i < 400 && fetches < count; i++) await sleep(5);
    expect(fetches).toBe(count);
  }

  /**
   * The refusal of a token once jose has applied the refetched JWKS (it parses the response after
   * the server sent it); until then the token is served from the cache, which verifies nothing.
   */
  async function eventualRefusal(verify: AccessTokenVerifier, token: string): Promise<string> {
    for (let i = 0; i < 400; i++) {
      const error = await verify(token).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (error !== undefined) {
        expect(error).toBeInstanceOf(InvalidTokenError);
        return (error as Error).message;
      }
      await sleep(5);
    }
    throw new Error("the token was never refused");
  }

  it("stops serving a removed key's tokens once a background refetch learns of the removal", async () => {
    const verify = await remoteVerifier();
    const start = Date.now();
    const removed = await issuer.sign({}, {}, "2h");
    const kept = await other.sign({}, {}, "2h");
    await verify(removed);
    await verify(kept);
    expect(fetches).toBe(1);
    expect(verifications).toHaveBeenCalledTimes(2);

    jwks = other.jwks;
    // Until the next fetch nobody knows of the removal: the cache answers as jose would.
    vi.setSystemTime(start + MAX_AGE - REFRESH_AHEAD - 1000);
    await verify(removed);
    expect(fetches).toBe(1);

    // Close to the max age, a request served from the cache refetches the JWKS in the background,
    // once, not on every request.
    vi.setSystemTime(start + MAX_AGE - REFRESH_AHEAD + 1000);
    await verify(kept);
    await verify(kept);
    await fetched(2);
    expect(verifications).toHaveBeenCalledTimes(2);

    expect(await eventualRefusal(verify, removed)).toBe("token is signed with an unknown key");
    await verify(kept);
    expect(verifications).toHaveBeenCalledTimes(3);
    expect(fetches).toBe(2);
  });

  it("indexes the key set again when it read it between a refetch's answer and jose applying it", async () => {
    const verify = await remoteVerifier();
    const start = Date.now();
    const removed = await issuer.sign({}, {}, "2h");
    const kept = await other.sign({}, {}, "2h");
    await verify(removed);
    await verify(kept);

    jwks = other.jwks;
    bodyDelayMs = 300;
    vi.setSystemTime(start + MAX_AGE - REFRESH_AHEAD + 1000);
    await verify(kept);
    await fetched(2);
    // Polled while the body is on its way, and after: the set read meanwhile is not kept.
    expect(await eventualRefusal(verify, removed)).toBe("token is signed with an unknown key");
  });

  it("serves nothing from a JWKS past its max age: the request refetches it first", async () => {
    const verify = await remoteVerifier();
    const start = Date.now();
    const removed = await issuer.sign({}, {}, "2h");
    const kept = await other.sign({}, {}, "2h");
    await verify(removed);
    await verify(kept);

    // No request came during the refresh window: the first one after the max age verifies.
    jwks = other.jwks;
    vi.setSystemTime(start + MAX_AGE + 1);
    await verify(kept);
    expect(fetches).toBe(2);
    expect(verifications).toHaveBeenCalledTimes(3);
    expect(await refusal(verify, removed)).toBe("token is signed with an unknown key");

    await verify(kept);
    expect(verifications).toHaveBeenCalledTimes(4);
  });

  it("stops serving a token whose kid the issuer no longer publishes, though the key material stays", async () => {
    const verify = await remoteVerifier();
    const start = Date.now();
    const token = await issuer.sign({}, {}, "2h");
    await verify(token);
    await verify(token);
    expect(verifications).toHaveBeenCalledTimes(1);

    jwks = { keys: [{ ...issuer.jwks.keys[0], kid: "renamed" }] };
    vi.setSystemTime(start + MAX_AGE - REFRESH_AHEAD + 1000);
    await verify(token);
    await fetched(2);
    expect(await eventualRefusal(verify, token)).toBe("token is signed with an unknown key");
    expect(verifications).toHaveBeenCalledTimes(2);
  });

  it("retries a failed background refetch at most once per cooldown", async () => {
    const verify = await remoteVerifier();
    const start = Date.now();
    const token = await issuer.sign({}, {}, "2h");
    await verify(token);
    status = 503;

    vi.setSystemTime(start + MAX_AGE - REFRESH_AHEAD + 1000);
    for (let i = 0; i < 5; i++) await verify(token);
    await fetched(2);
    await sleep(50); // the failed refetch settles
    for (let i = 0; i < 5; i++) await verify(token);
    await sleep(50);
    expect(fetches).toBe(2);

    vi.setSystemTime(start + MAX_AGE - REFRESH_AHEAD + 1000 + COOLDOWN);
    await verify(token);
    await fetched(3);
    // Still fresh: every one of these was served from the cache.
    expect(verifications).toHaveBeenCalledTimes(1);
  });

  it("caches tokens of a key published after start, picked up on an unknown kid", async () => {
    const verify = await remoteVerifier();
    const late = await createTestIssuer("ES256");
    const token = await late.sign({}, {}, "2h");
    jwks = { keys: [...issuer.jwks.keys, ...late.jwks.keys] };
    // The set was fetched at start: an unknown kid refetches it once the cooldown since has passed.
    vi.setSystemTime(Date.now() + COOLDOWN);
    await verify(token);
    await verify(token);
    expect(verifications).toHaveBeenCalledTimes(1);
  });
});
