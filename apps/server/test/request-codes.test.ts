// One code per request, the same in the access log and in the metrics: for each protocol (REST,
// Connect, gRPC, gRPC-Web), over HTTP/1.1 and HTTP/2 where the protocol runs on it, a call that
// succeeds and each early refusal (an unknown route, a body too large, an unsupported content type,
// a missing token, a CORS preflight). The access log line's code is the expected one, and the
// request counter grew by one for exactly that line's method, protocol and code.
import { randomUUID } from "node:crypto";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricsListener, serveMetrics } from "../src/observe/metrics-listener.js";
import { startTestServer, type TestServer } from "./harness.js";

const ORIGIN = "https://app.folio.example";
const LIST = "folio.v1.ProjectService/ListProjects";
const CREATE = "folio.v1.FolderService/CreateFolder";
/** Larger than the server's MAX_REQUEST_BODY_BYTES below. */
const OVERSIZED = 4096;

const lines: Record<string, unknown>[] = [];
let server: TestServer;
let metrics: MetricsListener;
let token: string;

beforeAll(async () => {
  server = await startTestServer(
    { MAX_REQUEST_BODY_BYTES: "1024", CORS_ALLOWED_ORIGINS: ORIGIN },
    { log: (line) => lines.push(line) },
  );
  metrics = await serveMetrics(server.app.metrics.registry, { host: "127.0.0.1", port: 0 });
  token = await server.issuer.sign({ org_id: randomUUID() });
});
afterAll(async () => {
  await metrics?.close();
  await server?.close();
});

type HttpVersion = "1.1" | "2";

/** A request as the client sends it. */
interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: Uint8Array | string;
}

/** What came back, read whole: HTTP/2 trailers apart (gRPC-Web's trailers are in its body). */
interface Received {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly trailers: Record<string, unknown>;
  readonly body: Buffer;
}

/** The expected outcome of a request, as the access log and the metrics should have it. */
interface Expected {
  readonly status: number;
  readonly method: string;
  readonly protocol: string;
  readonly code: string;
}

/** Sends a request over HTTP/1.1 (fetch) or HTTP/2 (node:http2), and reads its answer whole. */
async function send(version: HttpVersion, request: Sent): Promise<Received> {
  if (version === "1.1") {
    const response = await fetch(`${server.baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: typeof request.body === "string" ? request.body : request.body && new Uint8Array(request.body),
    });
    const body = Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers, trailers: {}, body };
  }
  const session = http2.connect(server.baseUrl);
  try {
    return await new Promise<Received>((resolve, reject) => {
      session.once("error", reject);
      const stream = session.request({
        ":method": request.method,
        ":path": request.path,
        ...request.headers,
      });
      const chunks: Buffer[] = [];
      let headers: Record<string, unknown> = {};
      let trailers: Record<string, unknown> = {};
      stream.on("response", (h) => {
        headers = h;
      });
      stream.on("trailers", (t) => {
        trailers = t;
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.once("error", reject);
      stream.once("close", () =>
        resolve({ status: Number(headers[":status"]), headers, trailers, body: Buffer.concat(chunks) }),
      );
      stream.end(request.body === undefined ? undefined : Buffer.from(request.body));
    });
  } finally {
    session.close();
  }
}

/** gRPC's and gRPC-Web's length-prefixed message. */
function envelope(payload: Uint8Array): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(payload.length, 1);
  return Buffer.concat([prefix, payload]);
}

/** gRPC's status numbers by Connect's names, for the codes these requests can end with. */
const GRPC_CODES: Readonly<Record<string, string>> = {
  "0": "ok",
  "3": "invalid_argument",
  "8": "resource_exhausted",
  "12": "unimplemented",
  "16": "unauthenticated",
};

/** The code a gRPC or gRPC-Web answer carries: in HTTP/2 trailers, headers, or gRPC-Web's trailer frame. */
function grpcCode(answer: Received): string | undefined {
  let status = answer.trailers["grpc-status"] ?? answer.headers["grpc-status"];
  for (let offset = 0; offset + 5 <= answer.body.length; ) {
    const length = answer.body.readUInt32BE(offset + 1);
    if (answer.body.readUInt8(offset) & 0x80) {
      status = /grpc-status:\s*(\d+)/.exec(
        answer.body.subarray(offset + 5, offset + 5 + length).toString(),
      )?.[1];
    }
    offset += 5 + length;
  }
  return status === undefined ? undefined : (GRPC_CODES[String(status)] ?? `grpc-${String(status)}`);
}

/** The code a REST or Connect answer carries: `ok` for a success, else its JSON error's `code`. */
function jsonCode(answer: Received, rest: boolean): string | undefined {
  if (answer.status < 300) return "ok";
  try {
    const body = JSON.parse(answer.body.toString()) as { code?: string; error?: { code?: string } };
    return rest ? body.error?.code : body.code;
  } catch {
    return undefined;
  }
}

/** Every sample of folio_rpc_requests_total, by its labels. */
async function requestCounts(): Promise<Map<string, number>> {
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
  version: HttpVersion,
  request: Sent,
  read: (a: Received) => string | undefined,
  expected: Expected,
) {
  const before = await requestCounts();
  const requestId = randomUUID();
  const answer = await send(version, {
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
  expect(grown(before, await requestCounts())).toEqual({ [labels]: 1 });
}

const auth = () => ({ authorization: `Bearer ${token}` });
const big = (fill: string) => fill.repeat(OVERSIZED);

describe("REST: one code per request, in the access log and the metrics", () => {
  const rest = (a: Received) => jsonCode(a, true);
  for (const version of ["1.1", "2"] as const) {
    it(`over HTTP/${version}: ok, 404, 413, 415 and 401`, async () => {
      await expectOneCode(version, { method: "GET", path: "/api/v1/projects", headers: auth() }, rest, {
        status: 200,
        method: LIST,
        protocol: "rest",
        code: "ok",
      });
      await expectOneCode(version, { method: "GET", path: "/api/v1/nothing-here" }, rest, {
        status: 404,
        method: "unknown",
        protocol: "rest",
        code: "not_found",
      });
      const json = { ...auth(), "content-type": "application/json" };
      await expectOneCode(
        version,
        { method: "POST", path: "/api/v1/folders", headers: json, body: JSON.stringify({ name: big("x") }) },
        rest,
        { status: 413, method: "unknown", protocol: "rest", code: "resource_exhausted" },
      );
      await expectOneCode(
        version,
        {
          method: "POST",
          path: "/api/v1/folders",
          headers: { ...auth(), "content-type": "text/plain" },
          body: "x",
        },
        rest,
        { status: 415, method: "unknown", protocol: "rest", code: "invalid_argument" },
      );
      await expectOneCode(version, { method: "GET", path: "/api/v1/projects" }, rest, {
        status: 401,
        method: LIST,
        protocol: "rest",
        code: "unauthenticated",
      });
    });
  }
});

describe("Connect: one code per request, in the access log and the metrics", () => {
  const connect = (a: Received) => jsonCode(a, false);
  const json = { "content-type": "application/json", "connect-protocol-version": "1" };
  for (const version of ["1.1", "2"] as const) {
    it(`over HTTP/${version}: ok, 404, 413, 415 and 401`, async () => {
      const list = { method: "POST", path: `/${LIST}`, body: "{}" };
      await expectOneCode(version, { ...list, headers: { ...json, ...auth() } }, connect, {
        status: 200,
        method: LIST,
        protocol: "connect",
        code: "ok",
      });
      await expectOneCode(
        version,
        { method: "POST", path: "/folio.v1.ProjectService/NoSuchMethod", headers: json, body: "{}" },
        connect,
        { status: 404, method: "unknown", protocol: "connect", code: "unimplemented" },
      );
      await expectOneCode(
        version,
        {
          method: "POST",
          path: `/${CREATE}`,
          headers: { ...json, ...auth() },
          body: JSON.stringify({ name: big("x") }),
        },
        connect,
        { status: 429, method: CREATE, protocol: "connect", code: "resource_exhausted" },
      );
      await expectOneCode(
        version,
        { ...list, headers: { ...auth(), "content-type": "application/connect+xml" } },
        connect,
        { status: 415, method: LIST, protocol: "connect", code: "invalid_argument" },
      );
      await expectOneCode(version, { ...list, headers: json }, connect, {
        status: 401,
        method: LIST,
        protocol: "connect",
        code: "unauthenticated",
      });
    });
  }
});

describe("gRPC and gRPC-Web: one code per request, in the access log and the metrics", () => {
  const cases = [
    { protocol: "grpc", versions: ["2"], contentType: "application/grpc", extra: { te: "trailers" } },
    { protocol: "grpc-web", versions: ["1.1", "2"], contentType: "application/grpc-web+proto", extra: {} },
  ] as const;
  for (const { protocol, versions, contentType, extra } of cases) {
    for (const version of versions) {
      it(`${protocol} over HTTP/${version}: ok, 404, 413, 415 and 401`, async () => {
        const headers = { "content-type": contentType, ...extra };
        const list = { method: "POST", path: `/${LIST}`, body: envelope(new Uint8Array()) };
        await expectOneCode(version, { ...list, headers: { ...headers, ...auth() } }, grpcCode, {
          status: 200,
          method: LIST,
          protocol,
          code: "ok",
        });
        await expectOneCode(
          version,
          { ...list, path: "/folio.v1.ProjectService/NoSuchMethod", headers },
          grpcCode,
          { status: 404, method: "unknown", protocol, code: "unimplemented" },
        );
        await expectOneCode(
          version,
          {
            ...list,
            path: `/${CREATE}`,
            headers: { ...headers, ...auth() },
            body: envelope(Buffer.from(big("x"))),
          },
          grpcCode,
          { status: 200, method: CREATE, protocol, code: "resource_exhausted" },
        );
        await expectOneCode(
          version,
          { ...list, headers: { ...extra, ...auth(), "content-type": `${contentType.split("+")[0]}+xml` } },
          grpcCode,
          { status: 415, method: LIST, protocol, code: "invalid_argument" },
        );
        await expectOneCode(version, { ...list, headers }, grpcCode, {
          status: 200,
          method: LIST,
          protocol,
          code: "unauthenticated",
        });
      });
    }
  }
});

describe("the server's own answers: one code per request, in the access log and the metrics", () => {
  for (const version of ["1.1", "2"] as const) {
    it(`over HTTP/${version}: a CORS preflight of REST and of an RPC, and a page that is not there`, async () => {
      for (const path of ["/api/v1/projects", `/${LIST}`]) {
        await expectOneCode(
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
      await expectOneCode(version, { method: "GET", path: "/no-such-page" }, () => undefined, {
        status: 404,
        method: "unknown",
        protocol: "http",
        code: "not_found",
      });
    });
  }
});
