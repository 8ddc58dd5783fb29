// Tracing as an operator turns it on: the spans of a request (server span, database spans beneath
// it) exported by the OpenTelemetry SDK, here to its in-memory exporter, with the caller's W3C
// traceparent honoured and the trace id in the log.
import { randomBytes, randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTracing, type Tracing, traceContextMixin, tracingRequested } from "../src/observe/tracing.js";
import { createFolder } from "./api.js";
import { startTestServer, type TestServer } from "./harness.js";

const exporter = new InMemorySpanExporter();
const logLines: Record<string, unknown>[] = [];
let tracing: Tracing;
let server: TestServer;

beforeAll(async () => {
  tracing = await startTracing({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  server = await startTestServer({}, { log: (line) => logLines.push(line) });
});
afterAll(async () => {
  await server?.close();
  await tracing?.shutdown();
});
beforeEach(() => exporter.reset());

/** The spans of `traceId`, once the server span (it ends last, with the response) is exported. */
async function spansOf(traceId: string): Promise<ReadableSpan[]> {
  const ofTrace = () => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
  await expect
    .poll(() => ofTrace().some((span) => span.kind === SpanKind.SERVER), { timeout: 10_000 })
    .toBe(true);
  return ofTrace();
}

const serverSpan = (spans: ReadableSpan[]) =>
  spans.find((span) => span.kind === SpanKind.SERVER) as ReadableSpan;

/** The spans of SQL statements among `spans`; fails unless each is beneath `root`. */
function databaseSpans(spans: ReadableSpan[], root: ReadableSpan): ReadableSpan[] {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const underRoot = (span: ReadableSpan): boolean => {
    const parent = span.parentSpanContext?.spanId;
    if (parent === root.spanContext().spanId) return true;
    const next = parent === undefined ? undefined : byId.get(parent);
    return next !== undefined && underRoot(next);
  };
  const database = spans.filter((span) => span.attributes["db.query.text"] !== undefined);
  expect(database.every(underRoot)).toBe(true);
  return database;
}

describe("tracing", () => {
  it("is off unless the OTEL_* variables ask for an exporter", () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" })).toBe(
      false,
    );
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp", OTEL_SDK_DISABLED: "true" })).toBe(false);
  });

  it("continues the caller's trace: a server span per request, the database spans beneath it, the trace id in the log", async () => {
    const traceId = randomBytes(16).toString("hex");
    const parentSpanId = randomBytes(8).toString("hex");
    const requestId = randomUUID();
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const outcome = await createFolder(
      server,
      "rest",
      { name: "Traced" },
      { token, headers: { traceparent: `00-${traceId}-${parentSpanId}-01`, "x-request-id": requestId } },
    );
    expect(outcome.code).toBe("ok");

    const spans = await spansOf(traceId);
    const root = serverSpan(spans);
    expect(root.name).toBe("folio.v1.FolderService/CreateFolder");
    expect(root.parentSpanContext?.spanId).toBe(parentSpanId);
    expect(root.attributes).toMatchObject({
      "rpc.service": "folio.v1.FolderService",
      "rpc.method": "CreateFolder",
      "http.request.method": "POST",
      "http.response.status_code": 201,
      "url.path": "/api/v1/folders",
    });
    expect(root.status.code).not.toBe(SpanStatusCode.ERROR);

    // The statement's span, a child of the server span: the create runs on the pool, outside
    // Prisma, and is traced by @folio/db itself.
    const database = databaseSpans(spans, root);
    expect(database.map((span) => span.name)).toEqual(["INSERT folders"]);
    expect(database[0]?.kind).toBe(SpanKind.CLIENT);
    expect(database[0]?.attributes["db.system.name"]).toBe("postgresql");
    expect(String(database[0]?.attributes["db.query.text"])).toMatch(/INSERT INTO folders/);

    const line = logLines.find((l) => l.requestId === requestId && l.msg === "request completed");
    expect(line).toMatchObject({ traceId, method: "folio.v1.FolderService/CreateFolder", protocol: "rest" });
  });

  it("traces the queries of a transaction by Prisma's spans, beneath the server span", async () => {
    const traceId = randomBytes(16).toString("hex");
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const outcome = await createFolder(
      server,
      "rest",
      { name: "Traced with a key" },
      {
        token,
        headers: {
          traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
          "idempotency-key": randomUUID(),
        },
      },
    );
    expect(outcome.code).toBe("ok");
    const spans = await spansOf(traceId);
    const database = databaseSpans(spans, serverSpan(spans));
    expect(database.some((span) => span.name.startsWith("prisma:"))).toBe(true);
    expect(
      database.some((span) =>
        /INSERT INTO\s+"?idempotency_keys/i.test(String(span.attributes["db.query.text"])),
      ),
    ).toBe(true);
  });

  it("starts a trace for a request without traceparent, with the gRPC status of the call", async () => {
    const projects = createClient(ProjectService, server.transport("grpc"));
    const requestId = randomUUID();
    await expect(projects.listProjects({}, { headers: { "x-request-id": requestId } })).rejects.toThrow();
    const line = logLines.find((l) => l.requestId === requestId && l.msg === "request completed");
    expect(line?.traceId).toMatch(/^[0-9a-f]{32}$/);
    const root = serverSpan(await spansOf(line?.traceId as string));
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.name).toBe("folio.v1.ProjectService/ListProjects");
    expect(root.attributes).toMatchObject({
      "rpc.system": "grpc",
      "rpc.grpc.status_code": 16,
      "error.type": "unauthenticated",
    });
    // A client's error is not the server's.
    expect(root.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("writes the trace and span ids into every log line written under a span", () => {
    trace.getTracer("test").startActiveSpan("work", (span) => {
      expect(traceContextMixin()).toEqual({
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
      });
      span.end();
    });
    expect(traceContextMixin()).toEqual({});
  });
});
