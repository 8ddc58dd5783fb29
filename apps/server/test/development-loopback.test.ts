// Development mode hands out tokens with every scope. A page of another site that rebinds its
// name to 127.0.0.1 reaches the server with that name in Host: those routes must refuse it.
import http from "node:http";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

/** What a test reads of an answer. */
interface Answer {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly body: Record<string, unknown>;
}

const TOKEN_FORM = "grant_type=client_credentials";

describe("development mode's token endpoint and JWKS answer only to loopback names", () => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    // No JWKS: development mode, as `npm start` runs it.
    server = await startTestServer({ AUTH_JWKS_FILE: "", AUTH_ISSUER: "", AUTH_AUDIENCE: "" });
    expect(server.app.developmentIssuer).toBeDefined();
    port = Number(new URL(server.baseUrl).port);
  });

  afterAll(async () => {
    await server?.close();
  });

  /** A request over HTTP/1.1 with the Host given (fetch does not let a caller set Host). */
  function send(method: "GET" | "POST", path: string, host: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const body = method === "POST" ? TOKEN_FORM : undefined;
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method,
          path,
          agent: false,
          headers: {
            host,
            ...(body === undefined
              ? {}
              : { "content-type": "application/x-www-form-urlencoded", "content-length": body.length }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              requestId: res.headers["x-request-id"] as string | undefined,
              body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
            }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  const token = (host: string) => send("POST", "/oauth/token", host);
  const jwks = (host: string) => send("GET", "/.well-known/jwks.json", host);

  function expectMisdirected(answer: Answer) {
    expect(answer.status).toBe(421);
    expect(answer.body).toEqual({
      error: {
        code: "failed_precondition",
        message: expect.stringContaining("localhost, 127.0.0.1 or [::1]"),
        requestId: answer.requestId,
        details: [],
      },
    });
    expect(answer.requestId).toMatch(/\S/);
  }

  it("refuses another site's name with 421 Misdirected Request and the API's error envelope", async () => {
    for (const host of [
      "rebind.attacker.example",
      `rebind.attacker.example:${port}`,
      `localhost.attacker.example:${port}`,
      `127.0.0.1.attacker.example:${port}`,
      `192.168.1.20:${port}`,
      `[::2]:${port}`,
    ]) {
      expectMisdirected(await token(host));
      expectMisdirected(await jwks(host));
    }
  });

  it("serves localhost, 127.0.0.1, [::1] and *.localhost, on any port, in any case", async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      "localhost",
      `LocalHost:${port}`,
      `folio.localhost:${port}`,
    ]) {
      const minted = await token(host);
      expect(minted.status, host).toBe(200);
      expect(minted.body).toMatchObject({
        token_type: "Bearer",
        scope: expect.stringContaining("project:read"),
      });
      const keys = await jwks(host);
      expect(keys.status, host).toBe(200);
      expect(keys.body.keys).toHaveLength(1);
    }
  });

  it("over HTTP/2 reads :authority", async () => {
    const session = http2.connect(server.baseUrl);
    try {
      const ask = (authority: string) =>
        new Promise<Answer>((resolve, reject) => {
          const stream = session.request({
            ":method": "POST",
            ":path": "/oauth/token",
            ":authority": authority,
            "content-type": "application/x-www-form-urlencoded",
          });
          let status = 0;
          let requestId: string | undefined;
          const chunks: Buffer[] = [];
          stream.on("response", (headers) => {
            status = Number(headers[":status"]);
            requestId = headers["x-request-id"] as string | undefined;
          });
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("end", () =>
            resolve({
              status,
              requestId,
              body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
            }),
          );
          stream.on("error", reject);
          stream.end(TOKEN_FORM);
        });
      expectMisdirected(await ask(`rebind.attacker.example:${port}`));
      expect((await ask(`localhost:${port}`)).status).toBe(200);
    } finally {
      session.close();
    }
  });
});
