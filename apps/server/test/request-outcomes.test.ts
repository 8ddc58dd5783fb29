// The code of every request, as the client got it, in its access log line and in the
// folio_rpc_requests_total metric: reported by the layer that answered it (the transcoder for a
// REST request, the in-process unary path for the calls it serves, connect-es for a message it
// could not read, the connect handler for a path that is no procedure), never guessed back from a
// status.
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricsListener, serveMetrics } from "../src/observe/metrics-listener.js";
import { bearer, PROTOCOLS, startTestServer, type TestServer } from "./harness.js";

const lines: Record<string, unknown>[] = [];
let server: TestServer;
let metrics: MetricsListener;

beforeAll(async () => {
  server = await startTestServer({}, { log: (line) => lines.push(line) });
  metrics = await serveMetrics(server.app.metrics.registry, { host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await metrics?.close();
  await server?.close();
});

/** The access log line of a request id, once written (after the response). */
async function lineOf(requestId: string): Promise<Record<string, unknown>> {
  await expect.poll(() => lines.filter((l) => l.requestId === requestId).length, { timeout: 5_000 }).toBe(1);
  return lines.find((l) => l.requestId === requestId) as Record<string, unknown>;
}

/** folio_rpc_requests_total of one method, protocol and code. */
async function counted(labels: { method: string; protocol: string; code: string }): Promise<number> {
  const text = await (await fetch(metrics.url)).text();
  const wanted = `folio_rpc_requests_total{method="${labels.method}",protocol="${labels.protocol}",code="${labels.code}"}`;
  const line = text.split("\n").find((l) => l.startsWith(`${wanted} `));
  return line === undefined ? 0 : Number(line.slice(wanted.length + 1));
}

/** Sends a request and checks its code in the log line and in the metric (which grows by one). */
async function expectCode(
  send: (requestId: string) => Promise<unknown>,
  expected: { method: string; protocol: string; code: string; status?: number },
): Promise<void> {
  const before = await counted(expected);
  const requestId = randomUUID();
  await send(requestId);
  const line = await lineOf(requestId);
  expect(line).toMatchObject({ method: expected.method, protocol: expected.protocol, code: expected.code });
  if (expected.status !== undefined) expect(line.status).toBe(expected.status);
  await expect.poll(() => counted(expected), { timeout: 5_000 }).toBe(before + 1);
}

const LIST = "folio.v1.ProjectService/ListProjects";

describe("the code of a request, in the access log and the metrics", () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: ok, and the code of a refusal by the interceptors`, async () => {
      const token = await server.issuer.sign({ org_id: randomUUID() });
      const client = createClient(ProjectService, server.transport(protocol));
      await expectCode((id) => client.listProjects({}, bearer(token, { "x-request-id": id })), {
        method: LIST,
        protocol,
        code: "ok",
      });
      await expectCode(
        (id) =>
          client.listProjects({}, { headers: { "x-request-id": id } }).catch((error: unknown) => {
            expect(ConnectError.from(error).code).toBe(Code.Unauthenticated);
          }),
        { method: LIST, protocol, code: "unauthenticated" },
      );
    });
  }

  it("rest: ok, a refusal by the interceptors, and an unknown route is not_found (404)", async () => {
    const token = await server.issuer.sign({ org_id: randomUUID() });
    await expectCode(
      (id) => fetch(`${server.baseUrl}/api/v1/projects`, bearer(token, { "x-request-id": id })),
      { method: LIST, protocol: "rest", code: "ok", status: 200 },
    );
    await expectCode(
      (id) => fetch(`${server.baseUrl}/api/v1/projects`, { headers: { "x-request-id": id } }),
      { method: LIST, protocol: "rest", code: "unauthenticated", status: 401 },
    );
    await expectCode(
      async (id) => {
        const response = await fetch(`${server.baseUrl}/api/v1/nothing-here`, {
          headers: { "x-request-id": id },
        });
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
      },
      { method: "unknown", protocol: "rest", code: "not_found", status: 404 },
    );
  });

  it("connect: a message that cannot be read is invalid_argument, once the caller is authenticated", async () => {
    const token = await server.issuer.sign({ org_id: randomUUID() });
    await expectCode(
      async (id) => {
        const response = await fetch(`${server.baseUrl}/${LIST}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-request-id": id,
            authorization: `Bearer ${token}`,
          },
          body: "{not json",
        });
        expect(((await response.json()) as { code: string }).code).toBe("invalid_argument");
      },
      { method: LIST, protocol: "connect", code: "invalid_argument", status: 400 },
    );
  });

  it("grpc-web and connect: a path that is no procedure is unimplemented; a plain HTTP one not_found", async () => {
    await expectCode(
      (id) =>
        fetch(`${server.baseUrl}/folio.v1.ProjectService/NoSuchMethod`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-request-id": id },
          body: "{}",
        }),
      { method: "unknown", protocol: "connect", code: "unimplemented", status: 404 },
    );
    await expectCode((id) => fetch(`${server.baseUrl}/no-such-page`, { headers: { "x-request-id": id } }), {
      method: "unknown",
      protocol: "http",
      code: "not_found",
      status: 404,
    });
  });
});
