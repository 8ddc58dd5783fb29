// One body limit on every protocol, counted after decompression and enforced while inflating: a
// gzip bomb or an oversized message is refused in bounded time, and memory comes back.
import { createGzip, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";
import { RAW_PROTOCOLS, rawCall } from "./raw-rpc.js";

const CREATE_FOLDER = "/folio.v1.FolderService/CreateFolder";
const MiB = 1024 * 1024;

let server: TestServer;
let token: string;
/** A CreateFolderRequest whose name is 256 MiB of "a", gzipped to a few hundred KB. */
let bomb: Buffer;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.issuer.sign();
  bomb = await gzipOfLargeName(256 * MiB);
});
afterAll(async () => {
  await server?.close();
});

/** Field 1 (name), length-delimited, of `size` bytes; gzipped as it is produced, never held whole. */
async function gzipOfLargeName(size: number): Promise<Buffer> {
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => gzip.on("end", resolve));
  gzip.write(Buffer.from([0x0a, ...varint(size)]));
  const block = Buffer.alloc(MiB, "a");
  for (let written = 0; written < size; written += MiB) {
    if (!gzip.write(block)) await new Promise((resolve) => gzip.once("drain", resolve));
  }
  gzip.end();
  await ended;
  return Buffer.concat(chunks);
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

async function folderCount(): Promise<number> {
  const [row] = await server.sql<{ count: string }>("SELECT count(*) FROM folders");
  return Number(row?.count);
}

describe("request body limit", () => {
  it("is small enough to make the bomb a bomb", () => {
    expect(bomb.length).toBeLessThan(MiB);
  });

  it.each(RAW_PROTOCOLS)("refuses a gzip bomb over %s while inflating", async (protocol) => {
    // Without a token it is never inflated: authentication comes before the body.
    for (const [authorization, code] of [
      [undefined, "unauthenticated"],
      [token, "resource_exhausted"],
    ] as const) {
      const started = Date.now();
      const outcome = await rawCall(server.baseUrl, protocol, CREATE_FOLDER, bomb, {
        gzip: true,
        ...(authorization === undefined ? {} : { token: authorization }),
      });
      expect(outcome.code).toBe(code);
      expect(Date.now() - started).toBeLessThan(5000);
    }
  });

  it.each(RAW_PROTOCOLS)("refuses an uncompressed message over the limit over %s", async (protocol) => {
    const name = Buffer.alloc(2 * MiB, "a");
    const message = Buffer.concat([Buffer.from([0x0a, ...varint(name.length)]), name]);
    const outcome = await rawCall(server.baseUrl, protocol, CREATE_FOLDER, message, { token });
    expect(outcome.code).toBe("resource_exhausted");
  });

  it("refuses a JSON body over the limit over Connect", async () => {
    const body = Buffer.from(JSON.stringify({ name: "a".repeat(2 * MiB) }));
    const outcome = await rawCall(server.baseUrl, "connect", CREATE_FOLDER, body, { token, json: true });
    expect(outcome.code).toBe("resource_exhausted");
  });

  it("still serves a compressed request within the limit", async () => {
    const before = await folderCount();
    const message = Buffer.from([0x0a, 4, ...Buffer.from("gzip")]);
    for (const protocol of RAW_PROTOCOLS) {
      const outcome = await rawCall(server.baseUrl, protocol, CREATE_FOLDER, gzipSync(message), {
        gzip: true,
        token: await server.issuer.sign(),
      });
      expect(outcome.code).toBe("ok");
    }
    expect(await folderCount()).toBe(before + 3);
  });

  it("keeps memory near its baseline through repeated bombs", async () => {
    const baseline = process.memoryUsage().rss;
    for (let round = 0; round < 5; round += 1) {
      await Promise.all(
        RAW_PROTOCOLS.map((protocol) =>
          rawCall(server.baseUrl, protocol, CREATE_FOLDER, bomb, { gzip: true, token }),
        ),
      );
    }
    expect(process.memoryUsage().rss - baseline).toBeLessThan(150 * MiB);
  });
});
