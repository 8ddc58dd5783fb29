// REST as HTTP clients use it, through the built server process: refusals sent before the body
// was read (lingering close on HTTP/1.1, RST_STREAM NO_ERROR on HTTP/2).

import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawHttp2, FRAME } from "./raw-http2.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

let server: ServerProcess;
let token: string;
beforeAll(async () => {
  server = await startServerProcess({});
  token = await server.issuer.sign({ sub: randomUUID(), org_id: randomUUID() });
});
afterAll(async () => {
  await server?.stop();
});

/** An 8 MiB JSON body: over the 1 MiB limit. */
const oversized = JSON.stringify({ displayName: "x".repeat(8 * 1024 * 1024) });

describe("answers sent before the request body was read", () => {
  it("reach fetch: 50 oversized bodies get 50 413 envelopes (HTTP/1.1)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: oversized,
      });
      const body = (await response.json()) as { error: { code: string; requestId: string } };
      expect(body.error.requestId).toBe(response.headers.get("x-request-id"));
      expect(response.headers.get("connection")).toBe("close");
      statuses.push(response.status);
    }
    expect(statuses).toEqual(Array(50).fill(413));
  }, 120_000);

  it("reach fetch when refused for its media type before the body", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.baseUrl}/api/v1/folders`, { method: "POST", headers, body: oversized });
    const unsupported = await post({ authorization: `Bearer ${token}`, "content-type": "text/plain" });
    expect(unsupported.status).toBe(415);
  });

  it("cuts a client that keeps sending after the answer, within the bounds", async () => {
    const { hostname, port } = new URL(server.baseUrl);
    // Half-open allowed: the server's FIN after its answer must not stop the client sending.
    const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    await new Promise((resolve) => socket.once("connect", resolve));
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    let open = true;
    void closed.then(() => {
      open = false;
    });
    socket.write(
      `POST /api/v1/folders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n",
    );
    // Sends forever, as fast as the server takes it: 64 KiB at a time.
    const chunk = Buffer.alloc(65536, 0x20);
    let sent = 0;
    while (open && sent < 512 * 1024 * 1024) {
      if (!socket.write(chunk)) {
        await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closed]);
      }
      sent += chunk.byteLength;
    }
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    // Cut after a few MiB (4 MiB read and dropped, plus what the socket buffers hold).
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it("reset the HTTP/2 stream with NO_ERROR after a complete 413", async () => {
    const h2 = await connectRawHttp2(Number(new URL(server.baseUrl).port));
    try {
      // POST with a Content-Length over the limit, and no body yet: refused at once.
      const block = Buffer.concat([
        Buffer.from([0x83, 0x86]), // :method POST, :scheme http
        hpackLiteral(4, "/api/v1/folders"), // :path
        hpackLiteral(1, "localhost"), // :authority
        hpackLiteral(23, `Bearer ${token}`), // authorization
        hpackLiteral(31, "application/json"), // content-type
        hpackLiteral(28, String(8 * 1024 * 1024)), // content-length
      ]);
      h2.write(headersFrame(1, block));
      await expect
        .poll(() => h2.frames.some((f) => f.type === FRAME.RST_STREAM && f.streamId === 1))
        .toBe(true);
      const onStream = h2.frames.filter((f) => f.streamId === 1);
      // HEADERS (413), the envelope in DATA frames, the last with END_STREAM, then RST_STREAM NO_ERROR.
      const reset = onStream.at(-1);
      const data = onStream.filter((f) => f.type === 0x0);
      expect(onStream[0]?.type).toBe(FRAME.HEADERS);
      expect(reset?.type).toBe(FRAME.RST_STREAM);
      expect(reset?.payload.readUInt32BE(0)).toBe(0);
      expect((onStream.at(-2)?.flags ?? 0) & 0x1).toBe(0x1);
      const body = Buffer.concat(data.map((f) => f.payload)).toString();
      expect(JSON.parse(body)).toMatchObject({ error: { code: "resource_exhausted" } });
    } finally {
      h2.socket.destroy();
    }
  });
});

/** An HPACK literal header field without indexing, its name from the static table. */
function hpackLiteral(index: number, value: string): Buffer {
  return Buffer.concat([
    hpackInteger(index, 4, 0x00),
    hpackInteger(value.length, 7, 0x00),
    Buffer.from(value),
  ]);
}

/** An HPACK integer with an `prefix`-bit prefix (RFC 7541, section 5.1). */
function hpackInteger(value: number, prefix: number, flags: number): Buffer {
  const max = (1 << prefix) - 1;
  if (value < max) return Buffer.from([flags | value]);
  const bytes = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A HEADERS frame with END_HEADERS, leaving the stream open. */
function headersFrame(streamId: number, block: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(block.length, 0, 3);
  header.writeUInt8(FRAME.HEADERS, 3);
  header.writeUInt8(0x4, 4);
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, block]);
}
