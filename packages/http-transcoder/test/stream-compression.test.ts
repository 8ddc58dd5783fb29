// Server streams compressed for a client that accepts a coding, flushed after each message: the
// client decodes each message as it arrives, while the stream is still open.
import http from "node:http";
import http2 from "node:http2";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ContentCoding, supportedContentCodings } from "../src/index.js";
import { EMPTY_BOOK_JSON, type LibraryServer, startLibraryServer } from "./library-server.js";

/** A streaming decompressor of the coding. */
function decompressor(coding: string | undefined): zlib.Gunzip {
  switch (coding) {
    case "gzip":
      return zlib.createGunzip();
    case "br":
      return zlib.createBrotliDecompress() as unknown as zlib.Gunzip;
    case "zstd":
      return (zlib as unknown as { createZstdDecompress(): zlib.Gunzip }).createZstdDecompress();
    default:
      throw new Error(`not a coding: ${coding}`);
  }
}

/** A stream being received: its headers, the text decoded so far, whether it has ended. */
interface Receiving {
  readonly headers: Record<string, string | string[] | undefined>;
  /** Bytes received as they came, before decoding. */
  rawBytes(): number;
  decoded(): string;
  ended(): boolean;
  /** Resolves with the whole decoded text once the response has ended. */
  readonly finished: Promise<string>;
  /** Goes away mid-stream. */
  cancel(): void;
}

/** GETs `path` over HTTP/1.1 or HTTP/2, decoding the body incrementally as it arrives. */
async function receive(
  server: LibraryServer,
  h2: boolean,
  path: string,
  headers: Record<string, string>,
): Promise<Receiving> {
  let source: NodeJS.ReadableStream;
  let responseHeaders: Record<string, string | string[] | undefined>;
  let cancel: () => void;
  if (h2) {
    const session = http2.connect(server.baseUrl);
    const stream = session.request({ ":method": "GET", ":path": path, ...headers });
    responseHeaders = await new Promise((resolve) => stream.once("response", resolve));
    source = stream;
    stream.once("close", () => session.close());
    cancel = () => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      session.close();
    };
  } else {
    const req = http.request(`${server.baseUrl}${path}`, { headers });
    req.end();
    const res = await new Promise<http.IncomingMessage>((resolve) => req.once("response", resolve));
    responseHeaders = res.headers;
    source = res;
    cancel = () => req.destroy();
  }
  const coding = responseHeaders["content-encoding"] as string | undefined;
  let raw = 0;
  let decoded = "";
  let ended = false;
  const decoder = coding === undefined ? undefined : decompressor(coding);
  const finished = new Promise<string>((resolve, reject) => {
    const target = decoder ?? source;
    target.on("data", (chunk: Buffer) => {
      decoded += chunk.toString("utf8");
    });
    target.once("end", () => {
      ended = true;
      resolve(decoded);
    });
    target.once("error", reject);
  });
  // Errors after a cancel are the cancel's.
  finished.catch(() => {});
  source.on("data", (chunk: Buffer) => {
    raw += chunk.byteLength;
    decoder?.write(chunk);
  });
  source.once("end", () => decoder?.end());
  source.on("error", () => {});
  return {
    headers: responseHeaders,
    rawBytes: () => raw,
    decoded: () => decoded,
    ended: () => ended,
    finished,
    cancel,
  };
}

const formats = [
  { format: "NDJSON", accept: "application/json", first: (json: string) => `{"result":${json}}\n` },
  { format: "SSE", accept: "text/event-stream", first: (json: string) => `data: ${json}\n\n` },
] as const;

/** The first Book of the stream, as REST writes it: every field, with its default or null. */
const book1 = (parent: string) =>
  JSON.stringify({ ...EMPTY_BOOK_JSON, name: `${parent}/books/1`, title: "Book 1" });

describe.each([false, true])("server streams compressed per message, HTTP/2: %s", (h2) => {
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer({}, { http2: h2 });
  });
  afterAll(async () => {
    await server?.close();
  });

  const cases = supportedContentCodings.flatMap((coding: ContentCoding) =>
    formats.map((f) => ({ coding, ...f })),
  );

  it.each(cases)(
    "$format in $coding: the first message decodes while the server holds the stream open",
    async ({ coding, accept, first }) => {
      const cancelledBefore = server.cancelled.length;
      const stream = await receive(server, h2, "/v1/shelves/held/books:watch?count=2", {
        accept,
        "accept-encoding": coding,
      });
      try {
        expect(stream.headers["content-encoding"]).toBe(coding);
        expect(stream.headers.vary).toMatch(/accept-encoding/i);
        // The handler yields one message and then waits for the client to leave: without a flush
        // after it, the compressor would keep it, and nothing would decode.
        await vi.waitFor(() => expect(stream.decoded()).toBe(first(book1("shelves/held"))), {
          timeout: 10_000,
        });
        expect(stream.ended()).toBe(false);
        expect(stream.rawBytes()).toBeGreaterThan(0);
      } finally {
        stream.cancel();
      }
      // The client went away: the handler's wait ends with the call.
      await vi.waitFor(() => expect(server.cancelled.length).toBeGreaterThan(cancelledBefore), {
        timeout: 10_000,
      });
    },
  );

  it.each(supportedContentCodings)("ends a whole stream in %s, its error line included", async (coding) => {
    const stream = await receive(server, h2, "/v1/shelves/s1/books:watch?count=3&fail=true", {
      "accept-encoding": coding,
    });
    expect(stream.headers["content-encoding"]).toBe(coding);
    const lines = (await stream.finished).split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ result: { name: "shelves/s1/books/1" } });
    expect(JSON.parse(lines[3] ?? "")).toMatchObject({ error: { code: "unavailable" } });
  });

  it("streams as they are for a client that accepts no coding, and raw chunks always", async () => {
    const plain = await receive(server, h2, "/v1/shelves/s1/books:watch?count=2", {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect((await plain.finished).split("\n")).toHaveLength(3);
    const raw = await receive(server, h2, "/v1/shelves/s1:download", { "accept-encoding": "gzip, br" });
    expect(raw.headers["content-encoding"]).toBeUndefined();
    expect(await raw.finished).toBe("title,pages\nOne,100\nTwo,200\n");
  });
});

describe("server streams without compression", () => {
  let server: LibraryServer;
  beforeAll(async () => {
    server = await startLibraryServer({ compression: false });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("are sent as they are when the transcoder compresses nothing", async () => {
    const stream = await receive(server, false, "/v1/shelves/s1/books:watch?count=2", {
      "accept-encoding": "gzip",
    });
    expect(stream.headers["content-encoding"]).toBeUndefined();
    expect((await stream.finished).split("\n")).toHaveLength(3);
  });
});
