// The bounds of the lingering close after an early answer are the server's configuration
// (HTTP_LINGER_TIME_MS, HTTP_LINGER_MAX_BYTES): a client that keeps sending after its 413 is cut
// once the configured bound is reached, long before the defaults (30 s, 1 GiB) would cut it.

import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./server-process.js";

const LINGER_TIME_MS = 600;
const LINGER_MAX_BYTES = 256 * 1024;

let server: ServerProcess;
let token: string;
beforeAll(async () => {
  server = await startServerProcess({
    HTTP_LINGER_TIME_MS: String(LINGER_TIME_MS),
    // Longer than the whole bound: only the total time or the bytes cut a client.
    HTTP_LINGER_IDLE_MS: "30000",
    HTTP_LINGER_MAX_BYTES: String(LINGER_MAX_BYTES),
  });
  token = await server.issuer.sign({ sub: randomUUID(), org_id: randomUUID() });
});
afterAll(async () => {
  await server?.stop();
});

/** A connection that has sent the head of a POST whose announced body is far over the limit. */
async function oversizedPost() {
  const { hostname, port } = new URL(server.baseUrl);
  // Half-open allowed: the server's FIN after its answer does not end the client's sending (as
  // it would by default), so that only the server's cut ends the connection.
  const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = "";
  let answeredAt: number | undefined;
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
    if (answeredAt === undefined && /^HTTP\/1\.1 413 [\s\S]*\r\n\r\n/.test(received)) {
      answeredAt = performance.now();
    }
  });
  socket.on("error", () => {});
  let closedAt: number | undefined;
  const closed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      closedAt = performance.now();
      resolve();
    }),
  );
  socket.write(
    `POST /api/v1/folders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n",
  );
  return {
    socket,
    closed,
    received: () => received,
    answeredAt: () => answeredAt,
    closedAt: () => closedAt,
  };
}

describe("the lingering close after an early answer, with configured bounds", () => {
  it("cuts a client that keeps sending slowly after HTTP_LINGER_TIME_MS", async () => {
    const post = await oversizedPost();
    // A kilobyte every 20 ms, forever: never idle, never many bytes; only the total time cuts it.
    const chunk = Buffer.alloc(1024, 0x20);
    let open = true;
    void post.closed.then(() => {
      open = false;
    });
    while (open) {
      post.socket.write(chunk);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 20)), post.closed]);
    }
    expect(post.received()).toMatch(/^HTTP\/1\.1 413 [\s\S]*\r\nConnection: close\r\n/i);
    const answeredAt = post.answeredAt();
    const closedAt = post.closedAt();
    expect(answeredAt).toBeDefined();
    const lingered = (closedAt ?? 0) - (answeredAt ?? 0);
    // The bound starts when the answer is sent, just before it arrives here.
    expect(lingered).toBeGreaterThan(LINGER_TIME_MS / 2);
    // Well before the default 30 s, with room for a busy machine.
    expect(lingered).toBeLessThan(4_000);
  }, 30_000);

  it("cuts a client that keeps sending fast after HTTP_LINGER_MAX_BYTES", async () => {
    const post = await oversizedPost();
    let open = true;
    void post.closed.then(() => {
      open = false;
    });
    const chunk = Buffer.alloc(65536, 0x20);
    let sent = 0;
    while (open && sent < 1024 * 1024 * 1024) {
      if (!post.socket.write(chunk)) {
        await Promise.race([new Promise((resolve) => post.socket.once("drain", resolve)), post.closed]);
      } else {
        // A turn of the loop per chunk, as a client that reads while it sends: one that writes
        // megabytes without reading meets the cut's reset on a write, before the answer is read.
        await new Promise((resolve) => setImmediate(resolve));
      }
      sent += chunk.byteLength;
    }
    await post.closed;
    expect(post.received()).toMatch(/^HTTP\/1\.1 413 /);
    // 256 KiB read and dropped, plus what the two sockets' buffers hold.
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  }, 30_000);
});
