import http from "node:http";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { ListProjectsRequestSchema } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCors } from "../src/transport/cors.js";
import { startTestServer, type TestServer } from "./harness.js";

const APP = "http://127.0.0.1:5173";
const OTHER = "https://evil.example";

/** A bare HTTP server: CORS first, then 404 for everything it lets through. */
async function serveCors(allowedOrigins: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const cors = createCors(allowedOrigins);
  const server = http.createServer((req, res) => {
    if (cors(req, res)) return;
    res.statusCode = 404;
    res.end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A preflight as Chromium sends it before a POST with a bearer token. */
function preflight(url: string, origin: string, requestHeaders = "authorization,content-type") {
  return fetch(url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": requestHeaders,
    },
  });
}

/** The Access-Control-* headers of a response. */
function corsHeaders(res: Response): Record<string, string> {
  const entries: [string, string][] = [];
  res.headers.forEach((value, name) => {
    entries.push([name, value]);
  });
  return Object.fromEntries(entries.filter(([name]) => name.startsWith("access-control-")));
}

function list(header: string | null): string[] {
  return (header ?? "").split(",").map((item) => item.trim().toLowerCase());
}

describe("CORS over HTTP", () => {
  let allowing: Awaited<ReturnType<typeof serveCors>>;
  let unset: Awaited<ReturnType<typeof serveCors>>;

  beforeAll(async () => {
    allowing = await serveCors([APP, "https://app.folio.example"]);
    unset = await serveCors([]);
  });
  afterAll(async () => {
    await allowing.close();
    await unset.close();
  });

  it("answers an allowed origin's preflight with 204 and what Connect, gRPC-Web and REST need", async () => {
    const res = await preflight(`${allowing.url}/api/v1/folders`, APP);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(list(res.headers.get("vary"))).toContain("origin");
    expect(list(res.headers.get("access-control-allow-methods"))).toEqual(
      expect.arrayContaining(["get", "post"]),
    );
    expect(list(res.headers.get("access-control-allow-headers"))).toEqual(
      expect.arrayContaining([
        "authorization",
        "content-type",
        "idempotency-key",
        "x-request-id",
        "connect-protocol-version",
        "connect-timeout-ms",
        "x-grpc-web",
        "x-user-agent",
        "grpc-timeout",
      ]),
    );
    expect(res.headers.get("access-control-max-age")).toBe("7200");
    // Bearer tokens only: cookies are never allowed to ride along.
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(await res.text()).toBe("");
  });

  it("lets an allowed origin's page read the status and headers of any response, errors included", async () => {
    const res = await fetch(`${allowing.url}/folio.v1.ProjectService/ListProjects`, {
      method: "POST",
      headers: { origin: "https://app.folio.example" },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.folio.example");
    expect(list(res.headers.get("vary"))).toContain("origin");
    expect(list(res.headers.get("access-control-expose-headers"))).toEqual(
      expect.arrayContaining([
        "x-request-id",
        "link",
        "retry-after",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "ratelimit-policy",
        "www-authenticate",
        "grpc-status",
        "grpc-message",
        "grpc-status-details-bin",
      ]),
    );
  });

  it("gives an origin that is not allowed no CORS header at all, preflight or not", async () => {
    for (const origin of [OTHER, "http://127.0.0.1:5174", "null", `${APP}/`]) {
      const pre = await preflight(`${allowing.url}/api/v1/folders`, origin);
      expect(pre.status, origin).toBe(404);
      expect(corsHeaders(pre), origin).toEqual({});
      const res = await fetch(`${allowing.url}/api/v1/projects`, { headers: { origin } });
      expect(corsHeaders(res), origin).toEqual({});
      // A shared cache must still not hand this answer to an allowed origin.
      expect(list(res.headers.get("vary"))).toContain("origin");
    }
  });

  it("adds nothing when no origin is configured", async () => {
    const pre = await preflight(`${unset.url}/api/v1/folders`, APP);
    expect(pre.status).toBe(404);
    expect(corsHeaders(pre)).toEqual({});
    expect(pre.headers.get("vary")).toBeNull();
  });
});

describe("CORS on the Folio server", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ CORS_ALLOWED_ORIGINS: `${APP}, https://app.folio.example` });
  });
  afterAll(async () => {
    await server.close();
  });

  it("answers preflights of REST, Connect and gRPC-Web paths with 204 (not 405)", async () => {
    for (const path of [
      "/api/v1/folders",
      "/api/v1/projects",
      "/folio.v1.FolderService/CreateFolder",
      "/folio.v1.ProjectService/ListProjects",
    ]) {
      const res = await preflight(`${server.baseUrl}${path}`, APP, "authorization,content-type,x-grpc-web");
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBe(APP);
    }
  });

  it("puts the CORS headers on refusals of every protocol, so a page can read why", async () => {
    const rest = await fetch(`${server.baseUrl}/api/v1/projects`, { headers: { origin: APP } });
    expect(rest.status).toBe(401);
    expect(rest.headers.get("access-control-allow-origin")).toBe(APP);
    expect(list(rest.headers.get("access-control-expose-headers"))).toContain("x-request-id");
    expect(((await rest.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");

    const connect = await fetch(`${server.baseUrl}/folio.v1.ProjectService/ListProjects`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/json" },
      body: "{}",
    });
    expect(connect.status).toBe(401);
    expect(connect.headers.get("access-control-allow-origin")).toBe(APP);

    const body = toBinary(ListProjectsRequestSchema, create(ListProjectsRequestSchema));
    const frame = new Uint8Array(5 + body.length);
    new DataView(frame.buffer).setUint32(1, body.length);
    frame.set(body, 5);
    const grpcWeb = await fetch(`${server.baseUrl}/folio.v1.ProjectService/ListProjects`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
      body: frame,
    });
    expect(grpcWeb.status).toBe(200);
    // The status is in the trailer frame of the body, which the page can read only with CORS.
    expect(new TextDecoder().decode(await grpcWeb.arrayBuffer())).toContain("grpc-status: 16");
    expect(grpcWeb.headers.get("access-control-allow-origin")).toBe(APP);
    expect(list(grpcWeb.headers.get("access-control-expose-headers"))).toEqual(
      expect.arrayContaining(["grpc-status", "grpc-message"]),
    );
  });

  it("keeps Vary: Origin on the OpenAPI document, which also varies by Accept-Encoding", async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/openapi.json`, { headers: { origin: APP } });
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(list(res.headers.get("vary"))).toEqual(expect.arrayContaining(["origin", "accept-encoding"]));
  });

  it("answers a successful call of an allowed origin with its origin, and another origin's with none", async () => {
    const token = await server.issuer.sign();
    const ok = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { origin: APP, authorization: `Bearer ${token}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    expect(list(ok.headers.get("access-control-expose-headers"))).toContain("ratelimit-remaining");

    const other = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { origin: OTHER, authorization: `Bearer ${token}` },
    });
    expect(other.status).toBe(200);
    expect(corsHeaders(other)).toEqual({});
  });
});
