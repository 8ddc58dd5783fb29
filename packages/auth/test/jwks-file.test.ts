// A JWKS file is read again while the server runs: keys rotated in it (by hand, or by Kubernetes
// updating a mounted Secret) verify tokens, or stop verifying them, without a restart; a change
// that cannot be used keeps the keys in use.
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import type { JSONWebKeySet } from "jose";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AccessTokenVerifier,
  createAccessTokenVerifier,
  InvalidTokenError,
  type KeySetEvent,
} from "../src/index.js";

/** The tests read the file this often, so that they wait little. */
const POLL_MS = 20;

let a: TestIssuer;
let b: TestIssuer;
let dir: string;
let stop: AbortController;
let events: KeySetEvent[];

beforeAll(async () => {
  a = await createTestIssuer("ES256");
  b = await createTestIssuer("ES256");
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "folio-jwks-file-"));
  stop = new AbortController();
  events = [];
});
afterEach(async () => {
  stop.abort();
  await removeTempDir(dir);
});

const jwksOf = (...issuers: TestIssuer[]): JSONWebKeySet => ({
  keys: issuers.flatMap((issuer) => issuer.jwks.keys),
});

function open(path: string): Promise<AccessTokenVerifier> {
  return createAccessTokenVerifier({
    keys: { jwksFile: path },
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    jwksFilePollMs: POLL_MS,
    onKeySetEvent: (event) => events.push(event),
    signal: stop.signal,
  });
}

/** Whether `verify` accepts `token`. */
const accepts = (verify: AccessTokenVerifier, token: string) =>
  verify(token).then(
    () => true,
    () => false,
  );

/** Waits until `condition` holds, checking every poll interval; fails after 5 s. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("the condition never held");
    await sleep(POLL_MS);
  }
}

async function refusal(verify: AccessTokenVerifier, token: string): Promise<string> {
  const error = await verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return (error as Error).message;
}

const count = (type: KeySetEvent["type"]) => events.filter((event) => event.type === type).length;

describe("a JWKS file", () => {
  it("verifies with a key written into it without a restart, and no longer with a key removed from it", async () => {
    const path = join(dir, "jwks.json");
    await writeFile(path, JSON.stringify(jwksOf(a)));
    const verify = await open(path);
    const tokenOfA = await a.sign();
    const tokenOfB = await b.sign();
    await verify(tokenOfA);
    await verify(tokenOfA); // now in the verified-token cache too
    expect(await refusal(verify, tokenOfB)).toBe("token is signed with an unknown key");

    await writeFile(path, JSON.stringify(jwksOf(b)));
    await until(() => accepts(verify, tokenOfB));
    // Cached or not, a token of a key no longer in the file is refused.
    expect(await refusal(verify, tokenOfA)).toBe("token is signed with an unknown key");
    expect(events).toContainEqual({ type: "reloaded", keys: 1 });
    expect(count("outage")).toBe(0);
  });

  it("keeps the keys in use when the file turns invalid, empty of keys or unreadable, and reports the outage once", async () => {
    const path = join(dir, "jwks.json");
    await writeFile(path, JSON.stringify(jwksOf(b)));
    const verify = await open(path);
    const tokenOfB = await b.sign();
    await verify(tokenOfB);

    await writeFile(path, '{"keys": [{"kty": "EC"');
    await until(() => count("load-failed") === 1);
    expect(await accepts(verify, tokenOfB)).toBe(true);
    const outage = events.find((event) => event.type === "outage");
    expect(outage).toMatchObject({ keysInUse: true });
    expect(outage?.type === "outage" && outage.error.message).toContain(path);

    await writeFile(path, JSON.stringify({ keys: [] }));
    await until(() => count("load-failed") === 2);
    expect(await accepts(verify, tokenOfB)).toBe(true);

    await rm(path);
    await until(() => count("load-failed") === 3);
    expect(await accepts(verify, tokenOfB)).toBe(true);
    // One outage, however many bad changes; an unchanged bad file is not reported again.
    expect(count("outage")).toBe(1);

    await writeFile(path, JSON.stringify(jwksOf(a, b)));
    await until(() => count("recovered") === 1);
    expect(await accepts(verify, tokenOfB)).toBe(true);
    expect(await accepts(verify, await a.sign())).toBe(true);
    expect(count("load-failed")).toBe(3);
    // A file's keys never stop being usable: calls are never refused for want of keys.
    expect(count("availability")).toBe(0);
  });

  it("follows a Kubernetes Secret volume's update: its ..data symlink swapped to a new directory", async () => {
    // The layout kubelet's atomic writer makes: jwks.json -> ..data/jwks.json, ..data -> ..<timestamp>.
    await mkdir(join(dir, "..2026_01_01"));
    await writeFile(join(dir, "..2026_01_01", "jwks.json"), JSON.stringify(jwksOf(a)));
    await symlink("..2026_01_01", join(dir, "..data"));
    await symlink(join("..data", "jwks.json"), join(dir, "jwks.json"));
    const verify = await open(join(dir, "jwks.json"));
    const tokenOfA = await a.sign();
    const tokenOfB = await b.sign();
    await verify(tokenOfA);

    await mkdir(join(dir, "..2026_01_02"));
    await writeFile(join(dir, "..2026_01_02", "jwks.json"), JSON.stringify(jwksOf(b)));
    await symlink("..2026_01_02", join(dir, "..data_tmp"));
    await rename(join(dir, "..data_tmp"), join(dir, "..data"));
    await rm(join(dir, "..2026_01_01"), { recursive: true });

    await until(() => accepts(verify, tokenOfB));
    expect(await refusal(verify, tokenOfA)).toBe("token is signed with an unknown key");
  });
});
