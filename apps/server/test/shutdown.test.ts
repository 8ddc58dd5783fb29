// Graceful shutdown of the real server process: SIGTERM while requests are in flight on HTTP/1.1
// and HTTP/2 (slow clients, and on PostgreSQL a create waiting for a lock). Readiness turns at
// once, connections are still accepted during the grace period and refused after it, every
// request in flight completes, and the process exits 0; past the bound, requests are cut and
// logged.
import { randomUUID } from "node:crypto";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { createClient } from "@connectrpc/connect";
import { FolderService } from "@folio/proto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTransport } from "./harness.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts the server process, stopped after the test. */
async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess(env);
  cleanups.push(() => server.stop());
  return server;
}

/** Polls `read` until `accept` holds for its value; returns that value. */
async function until<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether a new TCP connection to the server's port is accepted now. */
function accepts(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function inFlight(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^folio_rpc_requests_in_flight (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** An HTTP/1.1 keep-alive create whose body arrives in two parts: in flight until `finish()`. */
function slowRestCreate(baseUrl: string, token: string, requestId = randomUUID()) {
  const agent = new http.Agent({ keepAlive: true });
  const request = http.request(`${baseUrl}/api/v1/folders`, {
    method: "POST",
    agent,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-request-id": requestId,
    },
  });
  const response = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    request.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    request.on("error", reject);
  });
  request.write('{"name": ');
  return {
    response,
    finish: () => request.end(`"Slow ${randomUUID()}"}`),
    close: () => agent.destroy(),
  };
}

/** A Connect create over HTTP/2 whose body arrives in two parts: in flight until `finish()`. */
function slowHttp2Create(baseUrl: string, token: string) {
  const session = http2.connect(baseUrl);
  let goaway = false;
  session.on("goaway", () => {
    goaway = true;
  });
  session.on("error", () => undefined);
  const stream = session.request({
    ":method": "POST",
    ":path": "/folio.v1.FolderService/CreateFolder",
    "content-type": "application/json",
    authorization: `Bearer ${token}`,
  });
  const response = new Promise<number>((resolve, reject) => {
    let status = 0;
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    stream.on("end", () => resolve(status));
    stream.on("error", reject);
    stream.resume();
  });
  stream.write('{"name": ');
  return {
    response,
    finish: () => stream.end(`"Slow h2 ${randomUUID()}"}`),
    goaway: () => goaway,
    close: () => session.destroy(),
  };
}

describe("SIGTERM", () => {
  /**
   * The grace period of the first test. Readiness and a new connection are checked within it:
   * long enough that a loaded machine still gets both done in time (they take a few ms idle).
   */
  const GRACE_MS = 5_000;

  it("turns readiness at once, refuses connections after the grace period, lets every request in flight finish, exits 0", async () => {
    const server = await startServer({
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SHUTDOWN_TIMEOUT_MS: "30000",
      // A create waiting for a lock waits for it, rather than failing first.
      DATABASE_LOCK_TIMEOUT_MS: "30000",
      DATABASE_STATEMENT_TIMEOUT_MS: "30000",
    });
    const token = await server.issuer.sign({ org_id: randomUUID() });
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);

    const rest = slowRestCreate(server.baseUrl, token);
    const h2 = slowHttp2Create(server.baseUrl, token);
    cleanups.push(async () => {
      rest.close();
      h2.close();
    });
    // On PostgreSQL, a create waits for a lock that the test holds on `folders` (PGlite has one
    // session for every connection: no lock can make another connection wait there).
    let locked: { release: () => Promise<void>; created: Promise<unknown> } | undefined;
    if (server.database.kind === "postgres") {
      const client = new pg.Client({ connectionString: server.database.url });
      await client.connect();
      await client.query("BEGIN");
      await client.query("LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
      const folders = createClient(FolderService, createTransport("grpc", server.baseUrl));
      locked = {
        created: folders.createFolder({ name: "Locked" }, { headers: { authorization: `Bearer ${token}` } }),
        release: async () => {
          await client.query("COMMIT");
          await client.end();
        },
      };
    }
    const expected = locked === undefined ? 2 : 3;
    await until(
      () => inFlight(server.metricsUrl),
      (n) => n === expected,
    );

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    // Not ready at once, while connections are still accepted (the grace period).
    const ready = await until(
      async () => (await fetch(`${server.baseUrl}/readyz`)).status,
      (status) => status === 503,
    );
    expect(ready).toBe(503);
    expect(await accepts(server.baseUrl)).toBe(true);
    // Both seen during the grace period.
    expect(Date.now() - signalled).toBeLessThan(GRACE_MS);
    // Then refused.
    await until(
      () => accepts(server.baseUrl),
      (accepted) => !accepted,
    );
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(GRACE_MS - 100);
    await until(async () => h2.goaway(), Boolean);

    // The requests in flight all complete, with success.
    rest.finish();
    h2.finish();
    await locked?.release();
    const restResponse = await rest.response;
    expect(restResponse.status).toBe(201);
    // The keep-alive connection closes after its response.
    expect(restResponse.connection).toBe("close");
    expect(await h2.response).toBe(200);
    if (locked !== undefined) await expect(locked.created).resolves.toBeDefined();

    expect(await server.exited).toBe(0);
    const messages = server.lines.map((line) => line.msg);
    expect(messages).toContain("shutting down: not ready; still serving during the grace period");
    expect(messages).toContain("stopped");
    expect(server.lines.some((line) => line.aborted === true)).toBe(false);
  }, 120_000);

  it("cuts the requests still running at SHUTDOWN_TIMEOUT_MS, logs each, and exits 0", async () => {
    const server = await startServer({ SHUTDOWN_GRACE_MS: "0", SHUTDOWN_TIMEOUT_MS: "1000" });
    const requestId = randomUUID();
    const stuck = slowRestCreate(server.baseUrl, await server.issuer.sign(), requestId);
    cleanups.push(async () => stuck.close());
    await until(
      () => inFlight(server.metricsUrl),
      (n) => n === 1,
    );
    server.child.kill("SIGTERM");
    await expect(stuck.response).rejects.toThrow();
    expect(await server.exited).toBe(0);
    expect(server.lines.find((line) => line.requestId === requestId)).toMatchObject({
      aborted: true,
      code: "canceled",
      protocol: "rest",
    });
    expect(server.lines.find((line) => line.cutConnections !== undefined)).toMatchObject({
      cutConnections: 1,
      msg: "shutdown timeout reached: connections with requests in flight were cut",
    });
  }, 120_000);
});
