// Authentication comes first, on every protocol: a caller without a valid token is 401
// (`unauthenticated`), one without the method's scope 403 (`permission_denied`), whatever the
// body holds (broken JSON, an unknown field, a broken protobuf message, gzip), and the answer is
// given before the body is read: a request whose body never finishes arriving is answered.
import http2 from "node:http2";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";
import { RAW_PROTOCOLS, rawCall } from "./raw-rpc.js";
import { folderCount, newCaller } from "./workspace.js";

const CREATE = "/folio.v1.FolderService/CreateFolder";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** Bodies no server should parse for a caller it does not know. */
const BODIES = {
  "broken JSON": { bytes: Buffer.from('{"name": "x'), json: true, gzip: false },
  "an unknown field": { bytes: Buffer.from('{"name": "x", "extra": 1}'), json: true, gzip: false },
  "a broken protobuf message": { bytes: Buffer.from([0x0a, 0x7f, 0x41]), json: false, gzip: false },
  "a gzip body": { bytes: gzipSync('{"name": "Zipped"}'), json: true, gzip: true },
} as const;

type Caller = "no token" | "no scope";
const CALLERS: readonly [Caller, string, number][] = [
  ["no token", "unauthenticated", 401],
  ["no scope", "permission_denied", 403],
];

async function tokenOf(caller: Caller): Promise<{ token: string | undefined; orgId: string }> {
  const { token, orgId } = await newCaller(server, "project:read");
  return { token: caller === "no token" ? undefined : token, orgId };
}

describe.each(CALLERS)("a caller with %s", (caller, code, status) => {
  it.each(Object.entries(BODIES))(`is ${code} over REST, whatever the body: %s`, async (_name, body) => {
    const { token, orgId } = await tokenOf(caller);
    const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        "content-type": "application/json",
        ...(body.gzip ? { "content-encoding": "gzip" } : {}),
      },
      body: new Uint8Array(body.bytes),
    });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(await folderCount(server, orgId)).toBe(0);
  });

  for (const protocol of RAW_PROTOCOLS) {
    it.each(Object.entries(BODIES))(
      `is ${code} over ${protocol}, whatever the body: %s`,
      async (_name, body) => {
        const { token, orgId } = await tokenOf(caller);
        const outcome = await rawCall(server.baseUrl, protocol, CREATE, body.bytes, {
          ...(token === undefined ? {} : { token }),
          json: protocol === "connect" && body.json,
          gzip: body.gzip,
        });
        expect(outcome.code).toBe(code);
        expect(await folderCount(server, orgId)).toBe(0);
      },
    );
  }
});

/**
 * Sends an HTTP/1.1 request whose body announces more bytes than are ever sent, and resolves with
 * the status line of the answer, which can only come from a server that did not wait for the body.
 */
async function answerToUnfinishedBody(path: string, headers: Record<string, string>): Promise<string> {
  const socket = net.connect(Number(new URL(server.baseUrl).port), "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const head = Object.entries({ host: "127.0.0.1", "content-length": "100000", ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{"name": "`);
  let received = "";
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        if (received.includes("\r\n")) resolve(received.slice(0, received.indexOf("\r\n")));
      });
      socket.once("error", reject);
      socket.once("close", () => resolve(received));
    });
  } finally {
    socket.destroy();
  }
}

describe("the answer to a caller without a token", () => {
  it("comes before the body has arrived, over REST and Connect (HTTP/1.1)", async () => {
    const json = { "content-type": "application/json" };
    expect(await answerToUnfinishedBody("/api/v1/folders", json)).toBe("HTTP/1.1 401 Unauthorized");
    expect(await answerToUnfinishedBody(CREATE, { ...json, "connect-protocol-version": "1" })).toBe(
      "HTTP/1.1 401 Unauthorized",
    );
  });

  it("comes before the body has arrived, over gRPC (HTTP/2)", async () => {
    const session = http2.connect(server.baseUrl);
    try {
      const stream = session.request({
        ":method": "POST",
        ":path": CREATE,
        "content-type": "application/grpc",
        te: "trailers",
      });
      // A message announced as 100,000 bytes, of which five arrive; the stream stays open.
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(100_000, 1);
      stream.write(Buffer.concat([prefix, Buffer.from("hello")]));
      const status = await new Promise<string | undefined>((resolve, reject) => {
        stream.once("response", (headers) => resolve(headers["grpc-status"] as string | undefined));
        stream.once("error", reject);
      });
      expect(status).toBe("16");
      stream.close();
    } finally {
      session.destroy();
    }
  });

  it("comes before the body has arrived for a caller over its rate limit too", async () => {
    const limited = await startTestServer({
      RATE_LIMIT_TOKEN_REQUESTS: "1",
      RATE_LIMIT_WINDOW_SECONDS: "60",
    });
    try {
      const { token } = await newCaller(limited);
      const headers = { authorization: `Bearer ${token}` };
      expect((await fetch(`${limited.baseUrl}/api/v1/projects`, { headers })).status).toBe(200);
      const port = Number(new URL(limited.baseUrl).port);
      const socket = net.connect(port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(
        `POST /api/v1/folders HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
          `authorization: Bearer ${token}\r\ncontent-length: 100000\r\n\r\n{"name": "`,
      );
      const statusLine = await new Promise<string>((resolve) => {
        let received = "";
        socket.on("data", (chunk: Buffer) => {
          received += chunk.toString("latin1");
          if (received.includes("\r\n")) resolve(received.slice(0, received.indexOf("\r\n")));
        });
      });
      socket.destroy();
      expect(statusLine).toBe("HTTP/1.1 429 Too Many Requests");
    } finally {
      await limited.close();
    }
  });
});
