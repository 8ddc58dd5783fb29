// One code per request, the same in the access log and in the metrics: for each protocol (REST,
// Connect, gRPC, gRPC-Web), over HTTP/1.1 and HTTP/2 where the protocol runs on it, a call that
// succeeds and each early refusal (an unknown route, a body too large, an unsupported content type,
// a missing token, a CORS preflight). The access log line's code is the expected one, and the
// request counter grew by one for exactly that line's method, protocol and code. The RPC
// protocols are checked with their unary calls in-process and by connect-es's handlers
// (RPC_IN_PROCESS_UNARY on and off), which report their codes by different paths.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricsListener, serveMetrics } from "../src/observe/metrics-listener.js";
import { startTestServer, type TestServer } from "./harness.js";
import {
  envelope,
  grpcCode,
  type HttpVersion,
  jsonCode,
  type Received,
  type Sent,
  send,
} from "./raw-exchange.js";

const ORIGIN = "https://app.folio.example";
const LIST = "folio.v1.ProjectService/ListProjects";
const CREATE = "folio.v1.FolderService/CreateFolder";
/** Larger than the server's MAX_REQUEST_BODY_BYTES below. */
const OVERSIZED = 4096;

/** A server under test, with its metrics served and a token it accepts. */
interface Served {
  readonly server: TestServer;
  readonly metrics: MetricsListener;
  readonly token: string;
}

/** The values of RPC_IN_PROCESS_UNARY, one server each. */
const MODES = ["on", "off"] as const;
const lines: Record<string, unknown>[] = [];
const served = new Map<string, Served>();

beforeAll(async () => {
  for (const mode of MODES) {
    const server = await startTestServer(
      { MAX_REQUEST_BODY_BYTES: "1024", CORS_ALLOWED_ORIGINS: ORIGIN, RPC_IN_PROCESS_UNARY: mode },
      { log: (line) => lines.push(line) },
    );
    const metrics = await serveMetrics(server.app.metrics.registry, { host: "127.0.0.1", port: 0 });
    served.set(mode, { server, metrics, token: await server.issuer.sign({ org_id: randomUUID() }) });
  }
});
afterAll(async () => {
  for (const { server, metrics } of served.values()) {
    await metrics.close();
    await server.close();
  }
});

/** The server of a mode. */
const at = (mode: string) => served.get(mode) as Served;

/** The expected outcome of a request, as the access log and the metrics should have it. */
interface Expected {
  readonly status: number;
  readonly method: string;
  readonly protocol: string;
  readonly code: string;
}

/** Every sample of folio_rpc_requests_total, by its labels. */
async function requestCounts(metrics: MetricsListener): Promise<Map<string, number>> {
  const text = await (await fetch(metrics.url)).text();
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^folio_rpc_requests_total(\{.*\}) (\S+)$/.exec(line);
    if (match) counts.set(match[1] as string, Number(match[2]));
  }
  return counts;
}

/** The series of folio_rpc_requests_total that grew between two readings, with how much. */
function grown(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const changes: Record<string, number> = {};
  for (const [labels, value] of after) {
    const growth = value - (before.get(labels) ?? 0);
    if (growth !== 0) changes[labels] = growth;
  }
  return changes;
}

/**
 * Sends the request and checks: the client got the expected status (and code, when its answer
 * carries one); the access log line has the expected method, protocol and code; the request counter
 * grew by one, for the line's labels and no others.
 */
async function expectOneCode(
  mode: string,
  version: HttpVersion,
  request: Sent,
  read: (a: Received) => string | undefined,
  expected: Expected,
) {
  const { server, metrics } = at(mode);
  const before = await requestCounts(metrics);
  const requestId = randomUUID();
  const answer = await send(server.baseUrl, version, {
    ...request,
    headers: { ...request.headers, "x-request-id": requestId },
  });
  expect(answer.status).toBe(expected.status);
  const clientCode = read(answer);
  if (clientCode !== undefined) expect(clientCode).toBe(expected.code);
  await expect.poll(() => lines.filter((l) => l.requestId === requestId).length, { timeout: 5_000 }).toBe(1);
  const line = lines.find((l) => l.requestId === requestId) as Record<string, unknown>;
  expect(line).toMatchObject({ ...expected, httpVersion: version === "2" ? "2.0" : "1.1" });
  const labels = `{method="${line.method}",protocol="${line.protocol}",code="${line.code}"}`;
  expect(grown(before, await requestCounts(metrics))).toEqual({ [labels]: 1 });
}

const auth = (mode: string) => ({ authorization: `Bearer ${at(mode).token}` });
const big = (fill: string) => fill.repeat(OVERSIZED);

describe("REST: one code per request, in the access log and the metrics", () => {
  const mode = "on";
  const rest = (a: Received) => jsonCode(a, true);
  for (const version of ["1.1", "2"] as const) {
    it(`over HTTP/${version}: ok, 404, 413, 415 and 401`, async () => {
      await expectOneCode(
        mode,
        version,
        { method: "GET", path: "/api/v1/projects", headers: auth(mode) },
        rest,
        {
          status: 200,
          method: LIST,
          protocol: "rest",
          code: "ok",
        },
      );
      await expectOneCode(mode, version, { method: "GET", path: "/api/v1/nothing-here" }, rest, {
        status: 404,
        method: "unknown",
        protocol: "rest",
        code: "not_found",
      });
      const json = { ...auth(mode), "content-type": "application/json" };
      await expectOneCode(
        mode,
        version,
        { method: "POST", path: "/api/v1/folders", headers: json, body: JSON.stringify({ name: big("x") }) },
        rest,
        // The route names the method before the body is read.
        { status: 413, method: CREATE, protocol: "rest", code: "resource_exhausted" },
      );
      await expectOneCode(
        mode,
        version,
        {
          method: "POST",
          path: "/api/v1/folders",
          headers: { ...auth(mode), "content-type": "text/plain" },
          body: "x",
        },
        rest,
        { status: 415, method: CREATE, protocol: "rest", code: "invalid_argument" },
      );
      await expectOneCode(mode, version, { method: "GET", path: "/api/v1/projects" }, rest, {
        status: 401,
        method: LIST,
        protocol: "rest",
        code: "unauthenticated",
      });
    });
  }
});

describe.each(MODES)(
  "Connect, unary calls in-process %s: one code per request, in the log and the metrics",
  (mode) => {
    const connect = (a: Received) => jsonCode(a, false);
    const json = { "content-type": "application/json", "connect-protocol-version": "1" };
    for (const version of ["1.1", "2"] as const) {
      it(`over HTTP/${version}: ok, 404, 413, 415 and 401`, async () => {
        const list = { method: "POST", path: `/${LIST}`, body: "{}" };
        await expectOneCode(mode, version, { ...list, headers: { ...json, ...auth(mode) } }, connect, {
          status: 200,
          method: LIST,
          protocol: "connect",
          code: "ok",
        });
        await expectOneCode(
          mode,
          version,
          { method: "POST", path: "/folio.v1.ProjectService/NoSuchMethod", headers: json, body: "{}" },
          connect,
          { status: 404, method: "unknown", protocol: "connect", code: "unimplemented" },
        );
        await expectOneCode(
          mode,
          version,
          {
            method: "POST",
            path: `/${CREATE}`,
            headers: { ...json, ...auth(mode) },
            body: JSON.stringify({ name: big("x") }),
          },
          connect,
          { status: 429, method: CREATE, protocol: "connect", code: "resource_exhausted" },
        );
        await expectOneCode(
          mode,
          version,
          { ...list, headers: { ...auth(mode), "content-type": "application/connect+xml" } },
          connect,
          { status: 415, method: LIST, protocol: "connect", code: "invalid_argument" },
        );
        await expectOneCode(mode, version, { ...list, headers: json }, connect, {
          status: 401,
          method: LIST,
          protocol: "connect",
          code: "unauthenticated",
        });
      });
    }
  },
);

describe.each(MODES)(
  "gRPC and gRPC-Web, unary calls in-process %s: one code per request, in the log and the metrics",
  (mode) => {
    const cases = [
      { protocol: "grpc", versions: ["2"], contentType: "application/grpc", extra: { te: "trailers" } },
      { protocol: "grpc-web", versions: ["1.1", "2"], contentType: "application/grpc-web+proto", extra: {} },
    ] as const;
    for (const { protocol, versions, contentType, extra } of cases) {
      for (const version of versions) {
        it(`${protocol} over HTTP/${version}: ok, 404, 413, 415 and 401`, async () => {
          const headers = { "content-type": contentType, ...extra };
          const list = { method: "POST", path: `/${LIST}`, body: envelope(new Uint8Array()) };
          await expectOneCode(mode, version, { ...list, headers: { ...headers, ...auth(mode) } }, grpcCode, {
            status: 200,
            method: LIST,
            protocol,
            code: "ok",
          });
          await expectOneCode(
            mode,
            version,
            { ...list, path: "/folio.v1.ProjectService/NoSuchMethod", headers },
            grpcCode,
            { status: 404, method: "unknown", protocol, code: "unimplemented" },
          );
          await expectOneCode(
            mode,
            version,
            {
              ...list,
              path: `/${CREATE}`,
              headers: { ...headers, ...auth(mode) },
              body: envelope(Buffer.from(big("x"))),
            },
            grpcCode,
            { status: 200, method: CREATE, protocol, code: "resource_exhausted" },
          );
          await expectOneCode(
            mode,
            version,
            {
              ...list,
              headers: { ...extra, ...auth(mode), "content-type": `${contentType.split("+")[0]}+xml` },
            },
            grpcCode,
            { status: 415, method: LIST, protocol, code: "invalid_argument" },
          );
          await expectOneCode(mode, version, { ...list, headers }, grpcCode, {
            status: 200,
            method: LIST,
            protocol,
            code: "unauthenticated",
          });
        });
      }
    }
  },
);

describe("the server's own answers: one code per request, in the access log and the metrics", () => {
  const mode = "on";
  for (const version of ["1.1", "2"] as const) {
    it(`over HTTP/${version}: a CORS preflight of REST and of an RPC, and a page that is not there`, async () => {
      for (const path of ["/api/v1/projects", `/${LIST}`]) {
        await expectOneCode(
          mode,
          version,
          {
            method: "OPTIONS",
            path,
            headers: {
              origin: ORIGIN,
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization,content-type",
            },
          },
          () => undefined,
          { status: 204, method: "cors", protocol: "http", code: "ok" },
        );
      }
      await expectOneCode(mode, version, { method: "GET", path: "/no-such-page" }, () => undefined, {
        status: 404,
        method: "unknown",
        protocol: "http",
        code: "not_found",
      });
    });
  }
});
