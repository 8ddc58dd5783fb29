// Deadlines and cancellation over each RPC protocol, as the client sees them and as the server
// records them (its access log line). The timeout goes as the protocol's header, with no timer in
// the client, so that it is the server that ends the call.
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Health } from "@folio/grpc-health";
import { ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, PROTOCOLS, type Protocol, startTestServer, type TestServer } from "./harness.js";

const lines: Record<string, unknown>[] = [];
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { log: (line) => lines.push(line) });
});
afterAll(async () => {
  await server?.close();
});

/** The server's access log line of a request id, once written (after the response). */
async function logLineOf(requestId: string): Promise<Record<string, unknown>> {
  await expect.poll(() => lines.filter((l) => l.requestId === requestId).length, { timeout: 10_000 }).toBe(1);
  return lines.find((l) => l.requestId === requestId) as Record<string, unknown>;
}

/** The protocol's timeout header: `connect-timeout-ms` for Connect, `grpc-timeout` otherwise. */
function timeoutHeader(protocol: Protocol, ms: number): Record<string, string> {
  return protocol === "connect" ? { "connect-timeout-ms": String(ms) } : { "grpc-timeout": `${ms}m` };
}

/** The error a call failed with. */
async function failure(call: Promise<unknown>): Promise<ConnectError> {
  return call.then(
    () => {
      throw new Error("the call succeeded");
    },
    (e: unknown) => ConnectError.from(e),
  );
}

describe.each(PROTOCOLS)("over %s", (protocol) => {
  it("answers a unary call whose deadline has passed with deadline_exceeded", async () => {
    const requestId = randomUUID();
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const projects = createClient(ProjectService, server.transport(protocol));
    const call = projects.listProjects(
      {},
      bearer(token, { "x-request-id": requestId, ...timeoutHeader(protocol, 0) }),
    );
    expect((await failure(call)).code).toBe(Code.DeadlineExceeded);
    expect(await logLineOf(requestId)).toMatchObject({ code: "deadline_exceeded" });
  });

  it("answers a unary call with the longest deadline its header can say (past Node's longest timer)", async () => {
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const projects = createClient(ProjectService, server.transport(protocol));
    const longest: Record<string, string> =
      protocol === "connect" ? { "connect-timeout-ms": "9999999999" } : { "grpc-timeout": "99999999H" };
    const answer = await projects.listProjects({}, bearer(token, longest));
    expect(answer.projects).toEqual([]);
  });

  it("ends a server stream at its deadline with deadline_exceeded", async () => {
    const requestId = randomUUID();
    const health = createClient(Health, server.transport(protocol));
    const stream = health.watch(
      {},
      { headers: { "x-request-id": requestId, ...timeoutHeader(protocol, 300) } },
    );
    const error = await failure(
      (async () => {
        for await (const _ of stream);
      })(),
    );
    expect(error.code).toBe(Code.DeadlineExceeded);
    expect(await logLineOf(requestId)).toMatchObject({ code: "deadline_exceeded" });
  });

  it("ends a call the client cancels, as canceled in the server's log", async () => {
    const requestId = randomUUID();
    const health = createClient(Health, server.transport(protocol));
    const controller = new AbortController();
    const stream = health.watch({}, { headers: { "x-request-id": requestId }, signal: controller.signal });
    const error = await failure(
      (async () => {
        // The first message says the server is in the call; then the client gives up.
        for await (const _ of stream) controller.abort();
      })(),
    );
    expect(error.code).toBe(Code.Canceled);
    expect(await logLineOf(requestId)).toMatchObject({ code: "canceled" });
  });
});

describe("over REST", () => {
  it("takes a deadline from Grpc-Timeout, as grpc-gateway does: 504 deadline_exceeded once it has passed", async () => {
    const requestId = randomUUID();
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const response = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": requestId, "grpc-timeout": "0m" },
    });
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("deadline_exceeded");
    expect(await logLineOf(requestId)).toMatchObject({ protocol: "rest", code: "deadline_exceeded" });
  });

  it("answers within a deadline that has not passed, and refuses a Grpc-Timeout that is no timeout with 400", async () => {
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const headers = { authorization: `Bearer ${token}` };
    const within = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { ...headers, "grpc-timeout": "30S" },
    });
    expect(within.status).toBe(200);
    // The longest a header can say (11,000 years) is no deadline that has passed.
    const longest = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { ...headers, "grpc-timeout": "99999999H" },
    });
    expect(longest.status).toBe(200);
    const malformed = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { ...headers, "grpc-timeout": "soon" },
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { message: string } }).error.message).toContain(
      "grpc-timeout",
    );
  });
});
