// The Prometheus metrics as an operator scrapes them: from their own listener, before and after
// requests over every protocol; label values stay bounded whatever the requests' paths and ids.
import { randomUUID } from "node:crypto";
import http from "node:http";
import { createClient } from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricsListener, serveMetrics } from "../src/observe/metrics-listener.js";
import { createFolder } from "./api.js";
import { bearer, startTestServer, type TestServer } from "./harness.js";

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Reads Prometheus' text format into samples. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample named `name` whose labels include `labels` (0 when absent). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const sample = samples.find(
    (s) => s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v),
  );
  return sample?.value ?? 0;
}

let server: TestServer;
let metrics: MetricsListener;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_TOKEN_REQUESTS: "3", RATE_LIMIT_ORG_REQUESTS: "1000" });
  metrics = await serveMetrics(server.app.metrics.registry, { host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await metrics?.close();
  await server?.close();
});

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const response = await fetch(metrics.url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, samples: parse(text) };
}

const token = () => server.issuer.sign({ org_id: randomUUID() });

describe("GET /metrics on its own listener", () => {
  it("counts requests by RPC method, protocol and code, with their latency", async () => {
    const create = "folio.v1.FolderService/CreateFolder";
    const list = "folio.v1.ProjectService/ListProjects";
    const before = (await scrape()).samples;

    expect((await createFolder(server, "rest", { name: "Reports" }, { token: await token() })).code).toBe(
      "ok",
    );
    await createClient(ProjectService, server.transport("connect")).listProjects({}, bearer(await token()));
    await createClient(ProjectService, server.transport("grpc-web")).listProjects({}, bearer(await token()));
    await expect(createClient(ProjectService, server.transport("grpc")).listProjects({})).rejects.toThrow();
    expect((await fetch(`${server.baseUrl}/api/v1/projects`)).status).toBe(401);

    const after = (await scrape()).samples;
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta("folio_rpc_requests_total", { method: create, protocol: "rest", code: "ok" })).toBe(1);
    expect(delta("folio_rpc_requests_total", { method: list, protocol: "connect", code: "ok" })).toBe(1);
    expect(delta("folio_rpc_requests_total", { method: list, protocol: "grpc-web", code: "ok" })).toBe(1);
    expect(
      delta("folio_rpc_requests_total", { method: list, protocol: "grpc", code: "unauthenticated" }),
    ).toBe(1);
    expect(
      delta("folio_rpc_requests_total", { method: list, protocol: "rest", code: "unauthenticated" }),
    ).toBe(1);
    expect(delta("folio_rpc_request_duration_seconds_count", { method: create, protocol: "rest" })).toBe(1);
    expect(
      delta("folio_rpc_request_duration_seconds_sum", { method: create, protocol: "rest" }),
    ).toBeGreaterThan(0);
  });

  it("does not count the probes as requests: /healthz, and /readyz also when it answers 503 while draining", async () => {
    // A server of its own: this one begins its shutdown.
    const draining = await startTestServer();
    try {
      const probes = async () =>
        parse(await draining.app.metrics.registry.metrics()).filter(
          (s) =>
            s.name.startsWith("folio_rpc_request") &&
            (s.labels.method === "healthz" || s.labels.method === "readyz"),
        );
      expect((await fetch(`${draining.baseUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${draining.baseUrl}/readyz`)).status).toBe(200);
      draining.app.beginShutdown();
      expect((await fetch(`${draining.baseUrl}/readyz`)).status).toBe(503);
      expect(await probes()).toEqual([]);
      // An API request still is (once its response is over), and the probes left nothing in flight.
      expect((await fetch(`${draining.baseUrl}/api/v1/projects`)).status).toBe(401);
      const sample = async (name: string, labels: Record<string, string> = {}) =>
        value(parse(await draining.app.metrics.registry.metrics()), name, labels);
      await expect
        .poll(() => sample("folio_rpc_requests_total", { protocol: "rest", code: "unauthenticated" }))
        .toBe(1);
      expect(await sample("folio_rpc_requests_in_flight")).toBe(0);
      expect(await sample("folio_rpc_requests_total", { code: "unavailable" })).toBe(0);
      expect(await probes()).toEqual([]);
    } finally {
      await draining.close();
    }
  });

  it("counts a request in flight until its response is sent", async () => {
    const inFlight = async () => value((await scrape()).samples, "folio_rpc_requests_in_flight");
    expect(await inFlight()).toBe(0);
    // A client that sends its body slowly keeps its request in flight.
    const request = http.request(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${await token()}`, "content-type": "application/json" },
    });
    const response = new Promise<number>((resolve, reject) => {
      request.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      request.on("error", reject);
    });
    request.write('{"name": ');
    await expect.poll(inFlight, { timeout: 10_000 }).toBe(1);
    request.end('"Slow"}');
    expect(await response).toBe(201);
    await expect.poll(inFlight, { timeout: 10_000 }).toBe(0);
  });

  it("keeps label values bounded: no ids or paths of unknown routes", async () => {
    const id = randomUUID();
    await fetch(`${server.baseUrl}/api/v1/folders/${id}`);
    await fetch(`${server.baseUrl}/folio.v1.FolderService/${id}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await fetch(`${server.baseUrl}/${id}`);
    const { text, samples } = await scrape();
    expect(text).not.toContain(id);
    expect(value(samples, "folio_rpc_requests_total", { method: "unknown" })).toBeGreaterThanOrEqual(1);
    const methods = new Set(
      samples.filter((s) => s.name === "folio_rpc_requests_total").map((s) => s.labels.method),
    );
    for (const method of methods) {
      expect(method).toMatch(/^(folio\.v1\.\w+\/\w+|grpc\.[\w.]+\/\w+|jwks|docs|web|unknown)$/);
    }
  });

  it("counts rate-limit refusals, idempotency replays and conflicts", async () => {
    const before = (await scrape()).samples;
    const caller = { token: await token(), headers: { "idempotency-key": randomUUID() } };
    expect((await createFolder(server, "rest", { name: "Once" }, caller)).code).toBe("ok");
    expect((await createFolder(server, "connect", { name: "Once" }, caller)).code).toBe("ok");
    expect((await createFolder(server, "rest", { name: "Other" }, caller)).code).toBe("already_exists");
    expect((await createFolder(server, "rest", { name: "Fourth" }, caller)).code).toBe("resource_exhausted");
    const after = (await scrape()).samples;
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta("folio_idempotency_replays_total")).toBe(1);
    expect(delta("folio_idempotency_conflicts_total", { reason: "key_reused" })).toBe(1);
    expect(delta("folio_rate_limit_refusals_total", { policy: "token" })).toBe(1);
  });

  it("counts failed queries by reason, once each, in and out of transactions", async () => {
    const before = (await scrape()).samples;
    // Not a uuid: PostgreSQL refuses the statement, which is no outage (`other`).
    const folder = {
      orgId: "not-a-uuid",
      name: "x",
      nameKey: "x",
      parentId: null,
      color: null,
      visibility: "private",
      createdByUserId: randomUUID(),
    };
    await expect(server.app.db.folders.create(folder)).rejects.toThrow();
    await expect(server.app.db.transaction((tx) => tx.folders.create(folder))).rejects.toThrow();
    const after = (await scrape()).samples;
    expect(
      value(after, "folio_db_query_errors_total", { reason: "other" }) -
        value(before, "folio_db_query_errors_total", { reason: "other" }),
    ).toBe(2);
  });

  it("reports the database pool and the process", async () => {
    const { samples } = await scrape();
    expect(value(samples, "folio_db_pool_connections")).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.name === "folio_db_pool_idle_connections")).toBe(true);
    expect(samples.some((s) => s.name === "folio_db_pool_waiting_queries")).toBe(true);
    expect(value(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(value(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === "nodejs_eventloop_lag_seconds")).toBe(true);
  });

  it("answers 404 for anything but GET /metrics", async () => {
    expect((await fetch(metrics.url.replace("/metrics", "/"))).status).toBe(404);
    expect((await fetch(metrics.url, { method: "POST" })).status).toBe(404);
  });
});
