// REST as HTTP clients use it, through the built server process, with curl (HTTP/1.1 and h2c)
// and Node's fetch: compressed answers and bodies, conditional requests, HEAD and OPTIONS.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { residentBytes, type ServerProcess, startServerProcess } from "./server-process.js";

const run = promisify(execFile);
let server: ServerProcess;
let token: string;
const org = randomUUID();
beforeAll(async () => {
  // Every answer is compressed: a new organisation's page of projects is small.
  server = await startServerProcess({ REST_COMPRESS_MIN_BYTES: "0" });
  token = await server.issuer.sign({ sub: randomUUID(), org_id: org });
});
afterAll(async () => {
  await server?.stop();
});

interface CurlAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Runs curl and splits its `-i` output (the last response's head and body). */
async function curl(args: string[]): Promise<CurlAnswer> {
  const { stdout } = await run("curl", ["-s", "-i", ...args], { encoding: "latin1", maxBuffer: 16 << 20 });
  const split = stdout.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = stdout.slice(0, split).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: stdout.slice(split + 4) };
}

const protocols = [
  ["HTTP/1.1", "--http1.1"],
  ["HTTP/2", "--http2-prior-knowledge"],
] as const;

describe.each(protocols)("REST over %s", (_name, protocol) => {
  const projects = () => `${server.baseUrl}/api/v1/projects`;
  const bearer = () => ["-H", `authorization: Bearer ${token}`];

  it("compresses the list for curl --compressed, with Vary: Accept-Encoding", async () => {
    const answer = await curl([protocol, "--compressed", ...bearer(), projects()]);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-encoding"]).toMatch(/^(br|gzip|zstd)$/);
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(answer.body)).toEqual({ projects: [] });
    const plain = await curl([protocol, ...bearer(), projects()]);
    expect(plain.headers["content-encoding"]).toBeUndefined();
  });

  it("answers If-None-Match with 304, no body, the same ETag, Vary and an X-Request-Id", async () => {
    const first = await curl([protocol, ...bearer(), projects()]);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers["cache-control"]).toBe("private, no-cache");
    const again = await curl([
      protocol,
      ...bearer(),
      "-H",
      `if-none-match: ${first.headers.etag}`,
      projects(),
    ]);
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.vary).toBe(first.headers.vary);
    expect(again.headers["cache-control"]).toBe("private, no-cache");
    expect(again.headers["x-request-id"]).toMatch(/\S/);
    expect(again.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  it("checks the token's scope before the tag: 403 whatever tag is sent", async () => {
    const first = await curl([protocol, ...bearer(), projects()]);
    const unscoped = await server.issuer.sign({ sub: randomUUID(), org_id: org, scope: "files:upload" });
    for (const tag of [first.headers.etag as string, "*"]) {
      const answer = await curl([
        protocol,
        "-H",
        `authorization: Bearer ${unscoped}`,
        "-H",
        `if-none-match: ${tag}`,
        projects(),
      ]);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "permission_denied" } });
    }
  });

  it("answers HEAD like GET without a body, and OPTIONS with 204 and Allow", async () => {
    const get = await curl([protocol, ...bearer(), projects()]);
    const head = await curl([protocol, "-I", ...bearer(), projects()]);
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
    expect(head.headers.etag).toBe(get.headers.etag);
    const options = await curl([protocol, "-X", "OPTIONS", projects()]);
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe("GET, HEAD, OPTIONS");
  });
});

describe("compressed request bodies", () => {
  const post = (headers: Record<string, string>, body: Buffer) =>
    fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: new Uint8Array(body),
    });

  it("creates a folder from a gzip body", async () => {
    const response = await post(
      { "content-encoding": "gzip" },
      zlib.gzipSync(JSON.stringify({ name: "Zipped" })),
    );
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ folder: { name: "Zipped" } });
  });

  it("refuses an unsupported coding with 415 naming those it reads", async () => {
    const response = await post({ "content-encoding": "compress" }, Buffer.from("{}"));
    expect(response.status).toBe(415);
    expect(response.headers.get("accept-encoding")).toMatch(/^br, (zstd, )?gzip$/);
  });

  it("refuses compression bombs with 413 and holds no more memory for them", async () => {
    const bomb = await gzipOfZeros(512);
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const pid = server.child.pid as number;
    const before = await residentBytes(pid);
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => post({ "content-encoding": "gzip" }, bomb)),
      );
      expect(answers.map((a) => a.status)).toEqual([413, 413, 413, 413, 413]);
      for (const answer of answers) await answer.arrayBuffer();
    }
    // 20 bombs of 512 MiB each: the process grew by far less than one of them.
    expect((await residentBytes(pid)) - before).toBeLessThan(128 * 1024 * 1024);
  }, 60_000);
});

/** gzip of `mebibytes` MiB of zeros, compressed as a stream (never held whole). */
async function gzipOfZeros(mebibytes: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => chunks.push(chunk));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mebibytes; i++) {
    if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once("drain", resolve));
  }
  await new Promise((resolve) => gzip.end(resolve));
  return Buffer.concat(chunks);
}
