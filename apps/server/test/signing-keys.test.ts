// The signing keys as operators run them: a JWKS URL that goes down makes the instance not ready,
// its calls 503 with Retry-After, a warning logged once and a metric counted, and everything comes
// back by itself; a JWKS file rotated in place is used without a restart.

import { mkdtemp, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, type TestIssuer } from "@folio/test-support/tokens";
import type { JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricsListener, serveMetrics } from "../src/observe/metrics-listener.js";
import { startTestServer, type TestServer } from "./harness.js";

/** Calls ListProjects over Connect (JSON over HTTP/1.1, as curl would) with `token`. */
function listProjects(server: TestServer, token: string): Promise<Response> {
  return fetch(`${server.baseUrl}/folio.v1.ProjectService/ListProjects`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
}

/** The HTTP status of a ListProjects call with `token` (its body read, so the connection is reused). */
async function statusOf(server: TestServer, token: string): Promise<number> {
  const response = await listProjects(server, token);
  await response.arrayBuffer();
  return response.status;
}

const readyz = async (server: TestServer) => {
  const response = await fetch(`${server.baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, string> };
};

describe("a JWKS URL that cannot be fetched", () => {
  /** How the issuer's JWKS endpoint answers: the test takes it down and brings it back. */
  let mode: "ok" | "503" | "close" = "503";
  let jwksServer: http.Server;
  let issuer: TestIssuer;
  let server: TestServer;
  let metrics: MetricsListener;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    issuer = await createTestIssuer("ES256");
    jwksServer = http.createServer((req, res) => {
      if (mode === "close") {
        req.socket.destroy();
        return;
      }
      res.writeHead(mode === "ok" ? 200 : 503, { "content-type": "application/json" });
      res.end(mode === "ok" ? JSON.stringify(issuer.jwks) : '{"error":"down"}');
    });
    await new Promise<void>((done) => jwksServer.listen(0, "127.0.0.1", done));
    const { port } = jwksServer.address() as AddressInfo;
    // Down from the start: no key was ever fetched.
    server = await startTestServer(
      {
        AUTH_JWKS_FILE: "",
        AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
        // Retried every second while no key is held (every 5 s with the default cooldown).
        AUTH_JWKS_COOLDOWN_SECONDS: "0",
      },
      { log: (line) => logs.push(line) },
    );
    metrics = await serveMetrics(server.app.metrics.registry, { host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await metrics?.close();
    await server?.close();
    jwksServer?.close();
  });

  const failures = async () => {
    const text = await (await fetch(metrics.url)).text();
    return Number(/^folio_jwks_fetch_failures_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  };
  const outageWarnings = () =>
    logs.filter(
      (line) => line.level === "warn" && String(line.msg).startsWith("signing keys could not be loaded"),
    );

  it("is not ready, answers calls 503 unavailable with Retry-After, counts the failures and warns once; then recovers by itself", async () => {
    expect(await readyz(server)).toEqual({
      status: 503,
      body: { status: "not ready", reason: "signing-keys-unavailable" },
    });
    const token = await issuer.sign();
    for (const failing of ["503", "close"] as const) {
      mode = failing;
      for (let i = 0; i < 5; i++) {
        const response = await listProjects(server, token);
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
        expect(((await response.json()) as { code: string }).code).toBe("unavailable");
      }
      // REST answers the same.
      const rest = await fetch(`${server.baseUrl}/api/v1/projects`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    }
    // The background retries fail and are counted, while the calls ask the issuer nothing.
    await expect.poll(failures).toBeGreaterThanOrEqual(2);
    expect(outageWarnings()).toHaveLength(1);
    expect(outageWarnings()[0]).toMatchObject({ keysInUse: false });

    mode = "ok";
    await expect.poll(async () => (await readyz(server)).status).toBe(200);
    expect(await statusOf(server, token)).toBe(200);
    expect(logs.filter((line) => line.msg === "signing keys loaded again")).toHaveLength(1);
    expect(outageWarnings()).toHaveLength(1);
  });
});

describe("a JWKS file rotated while the server runs", () => {
  /** The file is read again this often (the setting's default is 5 s). */
  const POLL_MS = 1_000;
  let dir: string;
  let jwksFile: string;
  let old: TestIssuer;
  let next: TestIssuer;
  let server: TestServer;
  const logs: Record<string, unknown>[] = [];

  const publish = (...issuers: TestIssuer[]) =>
    writeFile(
      jwksFile,
      JSON.stringify({ keys: issuers.flatMap((i) => i.jwks.keys) } satisfies JSONWebKeySet),
    );

  /** Waits until a ListProjects call with `token` answers `status`; returns how long that took. */
  async function timeUntil(token: string, status: number): Promise<number> {
    const started = Date.now();
    await expect.poll(() => statusOf(server, token), { interval: 50 }).toBe(status);
    return Date.now() - started;
  }

  beforeAll(async () => {
    old = await createTestIssuer("ES256");
    next = await createTestIssuer("ES256");
    dir = await mkdtemp(join(tmpdir(), "folio-jwks-rotation-"));
    jwksFile = join(dir, "jwks.json");
    await publish(old);
    server = await startTestServer(
      { AUTH_JWKS_FILE: jwksFile, AUTH_JWKS_FILE_POLL_MS: String(POLL_MS) },
      { log: (line) => logs.push(line) },
    );
  });
  afterAll(async () => {
    await server?.close();
    await removeTempDir(dir);
  });

  it("accepts the new key within the poll interval and refuses the removed one, without a restart", async () => {
    const ofOld = await old.sign({}, {}, "1h");
    const ofNext = await next.sign({}, {}, "1h");
    expect(await statusOf(server, ofOld)).toBe(200);
    expect(await statusOf(server, ofNext)).toBe(401);

    // The runbook's order: the new key published alongside the old one first.
    await publish(old, next);
    // Within the documented time (the poll interval), with a second's slack for a busy machine.
    expect(await timeUntil(ofNext, 200)).toBeLessThan(POLL_MS + 1_000);
    expect(await statusOf(server, ofOld)).toBe(200);

    // Then the old key removed: its tokens, verified and cached before, are refused.
    await publish(next);
    expect(await timeUntil(ofOld, 401)).toBeLessThan(POLL_MS + 1_000);
    expect(await statusOf(server, ofNext)).toBe(200);
    expect(logs.filter((line) => String(line.msg).startsWith("JWKS file changed"))).toHaveLength(2);

    // A bad write keeps the keys in use, with one warning.
    await writeFile(jwksFile, "{ not json");
    await expect
      .poll(
        () =>
          logs.filter((line) => line.level === "warn" && String(line.msg).startsWith("signing keys")).length,
      )
      .toBe(1);
    expect(await statusOf(server, ofNext)).toBe(200);
    expect((await readyz(server)).status).toBe(200);
  });
});
