// HTTP/1.1 keep-alive as a browser and a prober use it: requests without a body, answered at
// once, leave their connection open for the next request; only an answer sent before its
// request's body arrived closes it (see early-response.ts).

import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

const APP = "http://localhost:5173";

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ CORS_ALLOWED_ORIGINS: APP });
  token = await server.issuer.sign({ sub: randomUUID(), org_id: randomUUID(), scope: "project:read" });
});
afterAll(async () => {
  await server?.close();
});

interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** One HTTP/1.1 connection: requests written as given, answers read one at a time. */
class RawConnection {
  private buffer = "";
  private waiting: (() => void) | undefined;
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer += chunk.toString("latin1");
      this.waiting?.();
    });
    socket.on("close", () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on("error", () => {});
  }

  static async open(baseUrl: string): Promise<RawConnection> {
    const { hostname, port } = new URL(baseUrl);
    const socket = net.connect({ port: Number(port), host: hostname });
    await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return new RawConnection(socket);
  }

  /** Sends `head` (lines without the final blank one) and reads its whole answer. */
  async request(head: string[], body = ""): Promise<RawResponse> {
    this.socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
    return this.response(head[0]?.startsWith("HEAD ") === true);
  }

  /** The next whole answer on the connection; fails if the connection closes first. */
  async response(bodiless = false): Promise<RawResponse> {
    for (;;) {
      const parsed = this.parse(bodiless);
      if (parsed !== undefined) return parsed;
      if (this.closed)
        throw new Error(`connection closed before a whole answer: ${JSON.stringify(this.buffer)}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  /** Resolves once the server has closed the connection. */
  async closedByServer(): Promise<void> {
    while (!this.closed) {
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  private parse(bodiless: boolean): RawResponse | undefined {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return undefined;
    const [statusLine = "", ...lines] = this.buffer.slice(0, end).split("\r\n");
    const status = Number(statusLine.split(" ")[1]);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const rest = this.buffer.slice(end + 4);
    let body: string;
    let used: number;
    if (bodiless || status === 204 || status === 304) {
      body = "";
      used = 0;
    } else if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      // The JSON answers here hold no CR LF of their own: the last chunk is the first "0" line.
      const last = rest.indexOf("\r\n0\r\n\r\n");
      const empty = rest.startsWith("0\r\n\r\n");
      if (last < 0 && !empty) return undefined;
      used = empty ? 5 : last + 7;
      body = "";
      let at = 0;
      while (at < used - 5) {
        const lineEnd = rest.indexOf("\r\n", at);
        const size = Number.parseInt(rest.slice(at, lineEnd), 16);
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        at = lineEnd + 2 + size + 2;
      }
    } else {
      const length = Number(headers.get("content-length") ?? "0");
      if (rest.length < length) return undefined;
      body = rest.slice(0, length);
      used = length;
    }
    this.buffer = rest.slice(used);
    return { status, headers, body };
  }
}

describe("HTTP/1.1 keep-alive", () => {
  it("serves a preflight, a probe, a 404 and an authenticated GET on one connection, none closing it", async () => {
    const connection = await RawConnection.open(server.baseUrl);
    try {
      const preflight = await connection.request([
        "OPTIONS /api/v1/projects HTTP/1.1",
        "Host: folio.test",
        `Origin: ${APP}`,
        "Access-Control-Request-Method: GET",
        "Access-Control-Request-Headers: authorization",
      ]);
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(APP);

      const probe = await connection.request(["GET /healthz HTTP/1.1", "Host: folio.test"]);
      expect(probe.status).toBe(200);

      const missing = await connection.request(["GET /api/v1/nothing-here HTTP/1.1", "Host: folio.test"]);
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body)).toMatchObject({ error: { code: "not_found" } });

      const projects = await connection.request([
        "GET /api/v1/projects HTTP/1.1",
        "Host: folio.test",
        `Authorization: Bearer ${token}`,
        "Content-Length: 0",
      ]);
      expect(projects.status, projects.body).toBe(200);
      expect(JSON.parse(projects.body)).toHaveProperty("projects");

      for (const answer of [preflight, probe, missing, projects]) {
        expect(answer.headers.get("connection")?.toLowerCase()).not.toBe("close");
      }
      expect(connection.closed).toBe(false);
    } finally {
      connection.socket.destroy();
    }
  });

  it("still closes the connection after an answer sent before the request's body arrived", async () => {
    const connection = await RawConnection.open(server.baseUrl);
    try {
      const probe = await connection.request(["GET /readyz HTTP/1.1", "Host: folio.test"]);
      expect(probe.headers.get("connection")?.toLowerCase()).not.toBe("close");
      // A body far over the limit is announced, and none of it sent: refused at once, and closed.
      const uploader = await server.issuer.sign({
        sub: randomUUID(),
        org_id: randomUUID(),
        scope: "files:upload",
      });
      const refused = await connection.request([
        "POST /api/v1/folders HTTP/1.1",
        "Host: folio.test",
        `Authorization: Bearer ${uploader}`,
        "Content-Type: application/json",
        "Content-Length: 1000000000",
      ]);
      expect(refused.status).toBe(413);
      expect(refused.headers.get("connection")?.toLowerCase()).toBe("close");
      connection.socket.end();
      await connection.closedByServer();
    } finally {
      connection.socket.destroy();
    }
  });
});
