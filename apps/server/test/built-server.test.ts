// The server as it is built and run (`node dist/main.js`, which loads the one-file bundle
// dist/server.js): what it reads from other packages' files is found from the bundle too (the SQL
// migrations, the API descriptors behind the OpenAPI document, the docs page's script, the web
// app), it turns on Node's compile cache itself, and with an OTLP endpoint configured it sends a
// span per request (the OpenTelemetry SDK lives outside the bundle and must see its tracers).
import { once } from "node:events";
import { mkdtemp, readdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./server-process.js";

let server: ServerProcess;
let temp: string;

beforeAll(async () => {
  // Its own temporary directory, where Node puts the compile cache unless NODE_COMPILE_CACHE (not
  // set here: it would turn the cache on by itself) names another.
  temp = await mkdtemp(join(tmpdir(), "folio-built-server-"));
  server = await startServerProcess({ TMPDIR: temp });
});

afterAll(async () => {
  await server?.stop();
  await removeTempDir(temp);
});

describe("the built server (dist/main.js)", () => {
  it("applies the migrations on a fresh database and serves the API over them", async () => {
    const headers = {
      authorization: `Bearer ${await server.issuer.sign()}`,
      "content-type": "application/json",
    };
    const create = await fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Contracts" }),
    });
    expect(create.status).toBe(201);
    expect(server.lines.map((line) => line.msg)).toContain("migrations applied");
  });

  it("serves a create with an Idempotency-Key, and its replay (queries through Prisma)", async () => {
    // Prisma's query compiler is not in the bundle: it is required from @folio/db's dependencies
    // on the first query through Prisma, as the idempotency keys' are.
    const request = {
      method: "POST",
      headers: {
        authorization: `Bearer ${await server.issuer.sign()}`,
        "content-type": "application/json",
        "idempotency-key": "built-server-create-1",
      },
      body: JSON.stringify({ name: "Invoices" }),
    };
    const first = await fetch(`${server.baseUrl}/api/v1/folders`, request);
    expect(first.status).toBe(201);
    const replay = await fetch(`${server.baseUrl}/api/v1/folders`, request);
    expect(replay.status).toBe(201);
    expect(await replay.json()).toEqual(await first.json());
  });

  it("serves the OpenAPI document built from the API's descriptors", async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/folders", "/projects"]));
  });

  it("serves the docs page with its script, and the web app", async () => {
    const page = await fetch(`${server.baseUrl}/api/v1/docs`);
    expect(page.status).toBe(200);
    const script = /src="([^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const scriptResponse = await fetch(new URL(script as string, server.baseUrl));
    expect(scriptResponse.status).toBe(200);
    expect(scriptResponse.headers.get("content-type")).toMatch(/javascript/);
    // Scalar's standalone bundle is megabytes, not an error page.
    expect((await scriptResponse.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);

    const app = await fetch(`${server.baseUrl}/`);
    expect(app.status).toBe(200);
    expect(app.headers.get("content-type")).toMatch(/text\/html/);
    expect(await app.text()).toContain('<div id="root">');
  });

  it("logs JSON lines with the level by name and the time in ISO 8601 (UTC), as log pipelines read them", async () => {
    const listening = server.lines.find((line) => line.msg === "listening");
    expect(listening).toMatchObject({ level: "info", service: "folio" });
    expect(listening?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(String(listening?.time)) - Date.now())).toBeLessThan(10 * 60_000);
    expect(new Set(server.lines.map((line) => typeof line.level))).toEqual(new Set(["string"]));
  });

  it("keeps the compiled code of its bundle in Node's compile cache", async () => {
    const cache = join(temp, "node-compile-cache");
    // Node writes the cache once the modules are loaded; wait for it rather than assume it.
    await expect
      .poll(async () => (await readdir(cache, { recursive: true }).catch(() => [])).length, {
        timeout: 15_000,
      })
      .toBeGreaterThan(0);
  });
});

describe("the built server with tracing on (OTLP over HTTP, JSON)", () => {
  /** The spans the collector received so far: names, kinds and ids (OTLP JSON, hex). */
  const received: { name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string }[] =
    [];
  let collector: http.Server;
  let traced: ServerProcess;

  beforeAll(async () => {
    // A collector of our own on loopback: OTLP/HTTP JSON export requests, answered 200.
    collector = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) received.push(...(scope.spans ?? []));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    collector.listen(0, "127.0.0.1");
    await once(collector, "listening");
    const { port } = collector.address() as AddressInfo;
    traced = await startServerProcess({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
  });

  afterAll(async () => {
    await traced?.stop();
    collector?.close();
  });

  it("exports a server span for a REST request, in one trace with its query", async () => {
    const token = await traced.issuer.sign();
    const response = await fetch(`${traced.baseUrl}/api/v1/projects`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const SERVER = 2; // OTLP's SpanKind: SPAN_KIND_SERVER
    await expect
      .poll(() => received.find((span) => span.name === "folio.v1.ProjectService/ListProjects"), {
        timeout: 15_000,
      })
      .toMatchObject({ kind: SERVER });
    const request = received.find((span) => span.name === "folio.v1.ProjectService/ListProjects");
    // The page's statement, run on the pool by @folio/db and traced by it.
    const CLIENT = 3; // SPAN_KIND_CLIENT
    await expect
      .poll(
        () => received.find((span) => span.traceId === request?.traceId && span.name === "SELECT projects"),
        {
          timeout: 15_000,
        },
      )
      .toMatchObject({ kind: CLIENT, parentSpanId: request?.spanId });
  });
});
