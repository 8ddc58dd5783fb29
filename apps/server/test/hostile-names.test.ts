// A name built to make NFC slow (one base letter, then long runs of combining marks in the wrong
// canonical order) is refused in time linear in its size: NFC's reordering is quadratic in a run's
// length, so the service bounds the runs (and the raw length) before it normalises. Sent near the
// body limit over REST, and gzipped over Connect (a few hundred bytes on the wire), it is 400 while
// the process keeps answering its probes.
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";
import { folderCount, newCaller } from "./workspace.js";

const gzipped = promisify(gzip);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** A CreateFolder body just under the 1 MiB limit: "a", then two runs of marks NFC must reorder. */
function hostileBody(): string {
  const marks = 262_000;
  const body = JSON.stringify({ name: `a${"\u0301".repeat(marks)}${"\u0316".repeat(marks)}` });
  expect(Buffer.byteLength(body)).toBeLessThan(1_048_576);
  expect(Buffer.byteLength(body)).toBeGreaterThan(1_040_000);
  return body;
}

/**
 * Sends `request` and, while it is in flight, a `/healthz` every 20 ms; resolves with the request's
 * answer and the slowest probe's time. A request that holds the event loop delays every probe.
 */
async function withProbes(request: () => Promise<Response>) {
  let slowest = 0;
  let done = false;
  const probing = (async () => {
    while (!done) {
      const sent = performance.now();
      const probe = await fetch(`${server.baseUrl}/healthz`);
      await probe.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  const response = await request();
  const body = (await response.json()) as { error?: { code: string; details: unknown[] }; code?: string };
  const took = performance.now() - started;
  done = true;
  await probing;
  return { response, body, took, slowest };
}

describe("a name of unordered combining marks near the body limit", () => {
  it("is 400 over REST without holding the event loop, and nothing is created", async () => {
    const caller = await newCaller(server);
    const payload = hostileBody();
    const { response, body, took, slowest } = await withProbes(() =>
      fetch(`${server.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: { authorization: `Bearer ${caller.token}`, "content-type": "application/json" },
        body: payload,
      }),
    );
    expect(response.status).toBe(400);
    expect(body.error?.code).toBe("invalid_argument");
    expect(JSON.stringify(body.error?.details)).toContain("must be at most 255 characters");
    // Unbounded, this request took 25 s and every probe waited as long; bounded it is a parse.
    expect(took).toBeLessThan(2_000);
    expect(slowest).toBeLessThan(2_000);
    expect(await folderCount(server, caller.orgId)).toBe(0);
  });

  it("is invalid_argument over Connect with a gzipped body of a few kilobytes", async () => {
    const caller = await newCaller(server);
    const compressed = await gzipped(hostileBody());
    expect(compressed.byteLength).toBeLessThan(8_192);
    const { response, body, took, slowest } = await withProbes(() =>
      fetch(`${server.baseUrl}/folio.v1.FolderService/CreateFolder`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${caller.token}`,
          "content-type": "application/json",
          "content-encoding": "gzip",
          "connect-protocol-version": "1",
        },
        body: compressed,
      }),
    );
    expect(response.status).toBe(400);
    expect(body.code).toBe("invalid_argument");
    expect(took).toBeLessThan(2_000);
    expect(slowest).toBeLessThan(2_000);
    expect(await folderCount(server, caller.orgId)).toBe(0);
  });

  it("is refused for its run of marks when it is short enough to be normalised", async () => {
    const caller = await newCaller(server);
    const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${caller.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `a${"\u0316\u0301".repeat(16)}` }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { details: unknown[] } };
    expect(JSON.stringify(body.error.details)).toContain(
      "must not contain more than 30 combining marks in a row",
    );
    // Thirty marks in a row are a name (if an odd one).
    const fine = await fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${caller.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `a${"\u0316\u0301".repeat(15)}` }),
    });
    expect(fine.status).toBe(201);
  });
});
