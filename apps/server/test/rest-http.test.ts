// REST as HTTP clients use it, through the built server process: refusals sent before the body
// was read (lingering close on HTTP/1.1, RST_STREAM NO_ERROR on HTTP/2). The lingering close's
// configured bounds are tested in lingering-close.test.ts.

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawHttp2, FRAME } from "./raw-http2.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

let server: ServerProcess;
let token: string;
beforeAll(async () => {
  // Longer header and request timeouts than the defaults (15 s, 60 s): in about 2 runs of 5, one
  // of the 50 connections below was cut at 15 s by the headers timeout although every other one
  // was answered within 5 s; what holds it is not yet known, and it is not the lingering close.
  server = await startServerProcess({ HTTP_HEADERS_TIMEOUT_MS: "120000", HTTP_REQUEST_TIMEOUT_MS: "240000" });
  token = await server.issuer.sign({ sub: randomUUID(), org_id: randomUUID() });
});
afterAll(async () => {
  await server?.stop();
});

/** An 8 MiB JSON body: over the 1 MiB limit. */
const oversized = JSON.stringify({ displayName: "x".repeat(8 * 1024 * 1024) });

/**
 * Sends a body of `size` bytes to CreateFolder with fetch, announced by its Content-Length as
 * any client with a whole body does, and reads the answer's envelope. The body is streamed in
 * 64 KiB chunks: fetch copies a whole buffer or string body several times, and 50 of them at
 * once on a busy 2-core machine stopped this process's writes for over 10 s, a pause the test
 * would blame on the server.
 */
async function postFolder(size: number) {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  async function* body() {
    for (let sent = 0; sent < size; sent += chunk.byteLength) {
      yield chunk.subarray(0, Math.min(chunk.byteLength, size - sent));
    }
  }
  // fetch sends an async iterable as it comes; a streamed body needs duplex "half" (Node's fetch).
  const init = {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "content-length": String(size),
    },
    body: body() as unknown as BodyInit,
    duplex: "half",
  };
  const response = await fetch(`${server.baseUrl}/api/v1/folders`, init);
  const envelope = (await response.json()) as { error: { code: string; requestId: string } };
  expect(envelope.error.requestId).toBe(response.headers.get("x-request-id"));
  expect(response.headers.get("connection")).toBe("close");
  return { status: response.status, code: envelope.error.code };
}

describe("answers sent before the request body was read", () => {
  it("reach fetch: 50 clients sending 8 MiB bodies at once get 50 413 envelopes (HTTP/1.1)", async () => {
    // The server reads and drops what each client still sends after its 413 (a lingering close,
    // bounded by time): a connection cut while its client still sends loses the answer (EPIPE).
    const answers = await Promise.all(Array.from({ length: 50 }, () => postFolder(8 * 1024 * 1024)));
    expect(answers).toEqual(Array(50).fill({ status: 413, code: "resource_exhausted" }));
  }, 120_000);

  it("reach fetch with bodies far larger than any socket buffer (96 MiB, 4 clients at once)", async () => {
    // Loopback buffers reach 32 MiB (net.ipv4.tcp_rmem) plus 4 MiB (tcp_wmem): a body that fits in
    // them is all sent before the server's close could cut it, and would test nothing.
    const answers = await Promise.all(Array.from({ length: 4 }, () => postFolder(96 * 1024 * 1024)));
    expect(answers).toEqual(Array(4).fill({ status: 413, code: "resource_exhausted" }));
  }, 120_000);

  it("reach fetch when refused for its media type before the body", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.baseUrl}/api/v1/folders`, { method: "POST", headers, body: oversized });
    const unsupported = await post({ authorization: `Bearer ${token}`, "content-type": "text/plain" });
    expect(unsupported.status).toBe(415);
  });

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
