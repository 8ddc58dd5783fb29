// A JWKS URL that fails (an error status, a closed connection, something that is not a JWKS) is
// the issuer's outage, not a bad token: calls are refused as retryable while no keys are held,
// without each being sent on to the issuer, and the key set recovers by itself.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AccessTokenVerifier,
  createAccessTokenVerifier,
  type KeySetEvent,
  KeySetUnavailableError,
} from "../src/index.js";

/** How the JWKS server answers. */
let mode: "ok" | "503" | "close" | "garbage" = "ok";
let fetches = 0;
let server: http.Server;
let url: string;
let issuer: TestIssuer;
let stop: AbortController;
let events: KeySetEvent[];

beforeAll(async () => {
  issuer = await createTestIssuer("ES256");
  server = http.createServer((req, res) => {
    fetches += 1;
    if (mode === "close") {
      req.socket.destroy();
      return;
    }
    res.writeHead(mode === "503" ? 503 : 200, { "content-type": "application/json" });
    res.end(mode === "garbage" ? '{"keys": "none"}' : JSON.stringify(issuer.jwks));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => {
  server?.close();
});
beforeEach(() => {
  fetches = 0;
  stop = new AbortController();
  events = [];
});
afterEach(() => {
  stop.abort();
});

function open(): Promise<AccessTokenVerifier> {
  return createAccessTokenVerifier({
    keys: { jwksUrl: url },
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    jwksCooldownMs: 0,
    onKeySetEvent: (event) => events.push(event),
    signal: stop.signal,
  });
}

async function failure(verify: AccessTokenVerifier, token: string): Promise<unknown> {
  return verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** Waits until `condition` holds; fails after 10 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition never held");
    await sleep(20);
  }
}

const count = (type: KeySetEvent["type"]) => events.filter((event) => event.type === type).length;

describe("a JWKS URL that fails", () => {
  it.each(["503", "close", "garbage"] as const)(
    "answering %s from start: calls refused as unavailable, with a retry delay, until it answers; then tokens verify",
    async (failing) => {
      mode = failing;
      const verify = await open();
      const token = await issuer.sign();
      expect(events).toContainEqual({ type: "availability", available: false });
      expect(events.find((event) => event.type === "outage")).toMatchObject({ keysInUse: false });

      const asked = fetches;
      for (let i = 0; i < 20; i++) {
        const error = await failure(verify, token);
        expect(error).toBeInstanceOf(KeySetUnavailableError);
        expect((error as KeySetUnavailableError).retryAfterSeconds).toBe(1);
      }
      // Refused at once: the issuer is asked by the background retries, not by every call.
      expect(fetches - asked).toBeLessThanOrEqual(1);

      mode = "ok";
      await until(() => count("recovered") === 1);
      await until(() => events.at(-1)?.type === "availability");
      expect(events.at(-1)).toEqual({ type: "availability", available: true });
      expect(await verify(token)).toMatchObject({ scopes: expect.any(Set) });
      expect(count("outage")).toBe(1);
      expect(count("load-failed")).toBeGreaterThanOrEqual(1);
    },
  );

  it("keeps verifying with the keys it holds while a refetch fails, and reports the outage once", async () => {
    mode = "ok";
    const verify = await open();
    const token = await issuer.sign();
    await verify(token);

    mode = "503";
    const unknownKid = await issuer.sign({}, { kid: "not-published" });
    // An unknown kid makes jose refetch (cooldown 0): that refetch fails.
    expect(await failure(verify, unknownKid)).toBeInstanceOf(KeySetUnavailableError);
    expect(events.find((event) => event.type === "outage")).toMatchObject({ keysInUse: true });
    expect(await verify(await issuer.sign())).toMatchObject({ scopes: expect.any(Set) });
    expect(count("availability")).toBe(0);

    mode = "ok";
    await until(() => count("recovered") === 1);
    expect(count("outage")).toBe(1);
  });
});
