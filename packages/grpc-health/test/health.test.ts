import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { type Client, Code, ConnectError, type ConnectRouter, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Health, type HealthStatuses, registerHealthService, ServingStatus } from "../src/index.js";

const { SERVING, NOT_SERVING, SERVICE_UNKNOWN } = ServingStatus;

describe("grpc.health.v1.Health over gRPC", () => {
  let server: Http2Server;
  let sessions: Http2SessionManager;
  let client: Client<typeof Health>;
  let statuses: HealthStatuses;

  beforeAll(async () => {
    server = createServer(
      connectNodeAdapter({
        routes(router: ConnectRouter) {
          statuses = registerHealthService(router);
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sessions = new Http2SessionManager(baseUrl);
    client = createClient(Health, createGrpcTransport({ baseUrl, sessionManager: sessions }));
  });

  afterAll(async () => {
    statuses.endWatches();
    sessions.abort();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    statuses.resume();
    statuses.set("", SERVING);
  });

  it("answers Check for the server as a whole, SERVING by default", async () => {
    expect((await client.check({ service: "" })).status).toBe(SERVING);
  });

  it("answers Check for an unknown service with NOT_FOUND", async () => {
    const error = await client.check({ service: "no.such.Service" }).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.NotFound);
  });

  it("answers with the status the server set", async () => {
    statuses.set("test.v1.Echo", NOT_SERVING);
    expect((await client.check({ service: "test.v1.Echo" })).status).toBe(NOT_SERVING);
    statuses.set("test.v1.Echo", SERVING);
    expect((await client.check({ service: "test.v1.Echo" })).status).toBe(SERVING);
  });

  it("lists every known service with its status", async () => {
    statuses.set("test.v1.Listed", NOT_SERVING);
    const { statuses: listed } = await client.list({});
    expect(listed[""]?.status).toBe(SERVING);
    expect(listed["test.v1.Listed"]?.status).toBe(NOT_SERVING);
  });

  it("streams the current status, then each change, on Watch", async () => {
    statuses.set("test.v1.Watched", SERVING);
    const abort = new AbortController();
    const stream = client.watch({ service: "test.v1.Watched" }, { signal: abort.signal });
    const seen: ServingStatus[] = [];
    for await (const { status } of stream) {
      seen.push(status);
      if (seen.length === 1) statuses.set("test.v1.Watched", NOT_SERVING);
      if (seen.length === 2) statuses.set("test.v1.Watched", SERVING);
      if (seen.length === 3) break;
    }
    abort.abort();
    expect(seen).toEqual([SERVING, NOT_SERVING, SERVING]);
  });

  it("sends SERVICE_UNKNOWN on Watch of an unknown service and keeps the stream open until it is known", async () => {
    const abort = new AbortController();
    const seen: ServingStatus[] = [];
    for await (const { status } of client.watch({ service: "test.v1.Later" }, { signal: abort.signal })) {
      seen.push(status);
      if (seen.length === 1) statuses.set("test.v1.Later", SERVING);
      else break;
    }
    abort.abort();
    expect(seen).toEqual([SERVICE_UNKNOWN, SERVING]);
  });

  it("turns every service NOT_SERVING on shutdown, ignores set() until resume, and tells watchers", async () => {
    statuses.set("test.v1.Down", SERVING);
    const abort = new AbortController();
    const seen: ServingStatus[] = [];
    for await (const { status } of client.watch({ service: "" }, { signal: abort.signal })) {
      seen.push(status);
      if (seen.length === 1) statuses.shutdown();
      else break;
    }
    abort.abort();
    expect(seen).toEqual([SERVING, NOT_SERVING]);
    statuses.set("test.v1.Down", SERVING);
    expect((await client.check({ service: "" })).status).toBe(NOT_SERVING);
    expect((await client.check({ service: "test.v1.Down" })).status).toBe(NOT_SERVING);
    statuses.resume();
    expect((await client.check({ service: "test.v1.Down" })).status).toBe(SERVING);
  });

  it("ends a Watch stream past its deadline with DEADLINE_EXCEEDED, not OK", async () => {
    // The deadline as a header only: no timer in the client, so that the server ends the stream.
    const seen: ServingStatus[] = [];
    const error = await (async () => {
      for await (const { status } of client.watch({ service: "" }, { headers: { "grpc-timeout": "200m" } })) {
        seen.push(status);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual([SERVING]);
    expect(ConnectError.from(error).code).toBe(Code.DeadlineExceeded);
  });

  it("ends open Watch streams with OK on endWatches()", async () => {
    const seen: ServingStatus[] = [];
    const watching = (async () => {
      for await (const { status } of client.watch({ service: "" })) {
        seen.push(status);
        statuses.endWatches();
      }
    })();
    await expect(watching).resolves.toBeUndefined();
    expect(seen).toEqual([SERVING]);
  });
});
