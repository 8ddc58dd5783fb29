// HTTP as clients use it on REST routes, on HTTP/1.1 and HTTP/2: compressed answers and request
// bodies, ETag and If-None-Match, HEAD and OPTIONS.
import http2 from "node:http2";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supportedContentCodings } from "../src/index.js";
import { type LibraryServer, startLibraryServer } from "./library-server.js";

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The body as received, before any decoding. */
  readonly raw: Buffer;
}

/** One request over HTTP/1.1 (node:http through fetch would decode) or HTTP/2, the body as sent. */
async function request(
  server: LibraryServer,
  h2: boolean,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<Answer> {
  const session = http2.connect(server.baseUrl);
  if (!h2) session.destroy();
  if (h2) {
    try {
      const stream = session.request(
        { ":method": method, ":path": path, ...headers },
        { endStream: body === undefined },
      );
      if (body !== undefined) stream.end(body);
      const chunks: Buffer[] = [];
      const head = await new Promise<http2.IncomingHttpHeaders>((resolve) =>
        stream.once("response", resolve),
      );
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return { status: Number(head[":status"]), headers: flat(head), raw: Buffer.concat(chunks) };
    } finally {
      session.close();
    }
  }
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.baseUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: flat(res.headers), raw: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

function flat(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(", ") : String(value),
    ]),
  );
}

function decode(answer: Answer): unknown {
  const coding = answer.headers["content-encoding"];
  const bytes =
    coding === "br"
      ? zlib.brotliDecompressSync(answer.raw)
      : coding === "gzip"
        ? zlib.gunzipSync(answer.raw)
        : coding === "zstd"
          ? (zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer }).zstdDecompressSync(answer.raw)
          : answer.raw;
  return JSON.parse(bytes.toString("utf8"));
}

// A parent long enough that the page is over the threshold.
const shelf = `shelves/${"s".repeat(300)}`;
const listPath = `/v1/${shelf}/books`;

describe.each([false, true])("HTTP/2: %s", (h2) => {
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer({ compression: { threshold: 256 } }, { http2: h2 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(supportedContentCodings)(
    "compresses a page in %s for a client that accepts it, with Vary",
    async (coding) => {
      const answer = await request(server, h2, "GET", listPath, {
        "accept-encoding": `${coding}, identity;q=0.5`,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-encoding"]).toBe(coding);
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
      expect(decode(answer)).toMatchObject({ books: [{ name: `${shelf}/books/1` }] });
    },
  );

  it("sends small answers, and answers to clients that accept no coding, as they are", async () => {
    const plain = await request(server, h2, "GET", listPath);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const refused = await request(server, h2, "GET", listPath, { "accept-encoding": "gzip;q=0, br;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    const small = await request(server, h2, "GET", "/v1/shelves/s1", { "accept-encoding": "gzip" });
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(decode(small)).toMatchObject({ name: "shelves/s1" });
  });

  it.each(supportedContentCodings)("reads a request body in %s", async (coding) => {
    const json = Buffer.from(JSON.stringify({ name: "shelves/zipped", theme: "compressed" }));
    const body =
      coding === "br"
        ? zlib.brotliCompressSync(json)
        : coding === "gzip"
          ? zlib.gzipSync(json)
          : (zlib as unknown as { zstdCompressSync(b: Buffer): Buffer }).zstdCompressSync(json);
    const answer = await request(
      server,
      h2,
      "POST",
      "/v1/shelves",
      { "content-type": "application/json", "content-encoding": coding },
      body,
    );
    expect(answer.status).toBe(201);
    expect(decode(answer)).toMatchObject({ name: "shelves/zipped", theme: "compressed" });
  });

  it("refuses a compressed body that decompresses beyond the limit with 413, and a corrupt one with 400", async () => {
    // 64 MiB of spaces, about 64 KB compressed: under the limit as sent, far over it decoded.
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
    const headers = { "content-type": "application/json", "content-encoding": "gzip" };
    const tooLarge = await request(server, h2, "POST", "/v1/shelves", headers, bomb);
    expect(tooLarge.status).toBe(413);
    expect(decode(tooLarge)).toMatchObject({ error: { code: "resource_exhausted" } });
    const corrupt = await request(server, h2, "POST", "/v1/shelves", headers, Buffer.from("not gzip"));
    expect(corrupt.status).toBe(400);
    expect(decode(corrupt)).toMatchObject({ error: { message: "request body: not valid gzip data" } });
  });

  it("tags GET answers and answers a matching If-None-Match with 304 and no body", async () => {
    const first = await request(server, h2, "GET", listPath, { "accept-encoding": "gzip" });
    const tag = first.headers.etag;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+-gzip"$/);
    const again = await request(server, h2, "GET", listPath, {
      "accept-encoding": "gzip",
      "if-none-match": tag as string,
    });
    expect(again.status).toBe(304);
    expect(again.raw.byteLength).toBe(0);
    expect(again.headers.etag).toBe(tag);
    expect(again.headers.vary).toBe(first.headers.vary);
    // Another representation (uncompressed) has another tag: the client gets it whole.
    const identity = await request(server, h2, "GET", listPath, { "if-none-match": tag as string });
    expect(identity.status).toBe(200);
    expect(identity.headers.etag).not.toBe(tag);
    // Another resource: another tag.
    const other = await request(server, h2, "GET", "/v1/shelves/s2/books", {
      "if-none-match": tag as string,
    });
    expect(other.status).toBe(200);
  });

  it("answers HEAD with the GET's status and headers, and no body", async () => {
    const get = await request(server, h2, "GET", listPath, { "accept-encoding": "br" });
    const head = await request(server, h2, "HEAD", listPath, { "accept-encoding": "br" });
    expect(head.status).toBe(200);
    expect(head.raw.byteLength).toBe(0);
    for (const name of ["content-type", "content-encoding", "content-length", "etag", "vary"]) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  it("calls the method declared for HEAD (custom kind HEAD), and the GET's only where none is", async () => {
    const calls = () => server.received.map((call) => call.method);
    const before = server.received.length;
    const found = await request(server, h2, "HEAD", "/v1/shelves/s1/books/b1");
    expect(found.status).toBe(200);
    expect(found.raw.byteLength).toBe(0);
    // GetBook finds every book; the HEAD binding's method answers for itself.
    const missing = await request(server, h2, "HEAD", "/v1/shelves/s1/books/missing");
    expect(missing.status).toBe(404);
    const onlyHead = await request(server, h2, "HEAD", "/v1/shelves/s1/books/b1/exists");
    expect(onlyHead.status).toBe(200);
    expect(calls().slice(before)).toEqual(["CheckBook", "CheckBook", "CheckBook"]);
    expect(server.received.at(-1)?.request).toEqual({ name: "shelves/s1/books/b1" });
    // GET of the path is still GetBook's, and HEAD of a path without a HEAD binding the GET's.
    const get = await request(server, h2, "GET", "/v1/shelves/s1/books/b1");
    expect(get.status).toBe(200);
    const shelfHead = await request(server, h2, "HEAD", "/v1/shelves/s1");
    expect(shelfHead.status).toBe(200);
    expect(calls().slice(before + 3)).toEqual(["GetBook", "GetShelf"]);
  });

  it("lists a HEAD binding's method in Allow, beside the GET", async () => {
    const both = await request(server, h2, "OPTIONS", "/v1/shelves/s1/books/b1");
    expect(both.headers.allow).toBe("DELETE, GET, HEAD, OPTIONS, PATCH, PUT");
    const headOnly = await request(server, h2, "OPTIONS", "/v1/shelves/s1/books/b1/exists");
    expect(headOnly.status).toBe(204);
    expect(headOnly.headers.allow).toBe("HEAD, OPTIONS");
    const refused = await request(server, h2, "GET", "/v1/shelves/s1/books/b1/exists");
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe("HEAD, OPTIONS");
  });

  it("answers OPTIONS with 204 and the methods of the path", async () => {
    const answer = await request(server, h2, "OPTIONS", "/v1/shelves/s1");
    expect(answer.status).toBe(204);
    expect(answer.headers.allow).toBe("GET, HEAD, OPTIONS, PATCH");
    const unknown = await request(server, h2, "OPTIONS", "/v1/nothing/here/at/all");
    expect(unknown.status).toBe(404);
  });
});

describe("partial answers (?fields=, AIP-157)", () => {
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const get = async (path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`);
    return { status: response.status, json: (await response.json()) as unknown };
  };

  it("writes only the fields named, in nested messages too", async () => {
    expect(await get("/v1/shelves/s1/books?fields=books(name,title)")).toEqual({
      status: 200,
      json: { books: [{ name: "shelves/s1/books/1", title: "One" }] },
    });
    expect((await get("/v1/shelves/s1/books?fields=books/details(publisher),nextPageToken")).json).toEqual({
      books: [{ details: { publisher: "P" } }],
      nextPageToken: "",
    });
    expect((await get("/v1/shelves/s1/books?fields=next_page_token&pageSize=1")).json).toEqual({
      nextPageToken: "page 2/+",
    });
  });

  it.each([
    ["nope", 'no field "nope" in the answer'],
    ["books(nope)", 'no field "books.nope" in the answer'],
    ["books(name", 'expected ")"'],
    ["nextPageToken(x)", '"nextPageToken" has no fields to select'],
  ])("refuses fields=%s with 400 naming the path", async (fields, reason) => {
    const answer = await get(`/v1/shelves/s1/books?fields=${encodeURIComponent(fields)}`);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      error: { code: "invalid_argument", details: [{ fieldViolations: [{ field: "fields" }] }] },
    });
    expect(JSON.stringify(answer.json)).toContain(reason.replace(/"/g, '\\"'));
  });
});
