import { once } from "node:events";
import { createServer } from "node:http";
import { connect } from "node:http2";
import type { AddressInfo } from "node:net";
import { createConnectRouter } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createHttpTranscoder } from "../src/index.js";
import { LibraryService } from "./gen/transcodertest/v1/library_pb.js";
import { startLibraryServer } from "./library-server.js";

describe("createHttpTranscoder options", () => {
  it("sends the id of the requestId option in the envelope and the X-Request-Id header", async () => {
    const server = await startLibraryServer({ requestId: () => "custom-id" });
    try {
      const response = await fetch(`${server.baseUrl}/v1/shelves/missing`, {
        headers: { "x-request-id": "ignored" },
      });
      expect(response.status).toBe(404);
      expect(response.headers.get("x-request-id")).toBe("custom-id");
      expect(await response.json()).toMatchObject({ error: { code: "not_found", requestId: "custom-id" } });
    } finally {
      await server.close();
    }
  });

  it("uses the X-Request-Id the server set on the response before", async () => {
    const router = createConnectRouter().service(LibraryService, {});
    const rest = createHttpTranscoder({ router });
    const server = createServer((req, res) => {
      res.setHeader("x-request-id", "server-assigned");
      rest(req, res);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/v1/nowhere`, {
        headers: { "x-request-id": "client" },
      });
      expect(response.headers.get("x-request-id")).toBe("server-assigned");
      expect(await response.json()).toMatchObject({
        error: { code: "not_found", requestId: "server-assigned" },
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("sends the error body of the errorBody option, with the transcoder's status and headers", async () => {
    const server = await startLibraryServer({
      errorContentType: "application/problem+json",
      // RFC 9457 problem details, built from the envelope the transcoder would send.
      errorBody: (error, { status, requestId, envelope }) => ({
        type: "about:blank",
        title: envelope.error.code,
        status,
        detail: error.rawMessage,
        instance: requestId,
        errors: envelope.error.details,
      }),
    });
    try {
      const notFound = await fetch(`${server.baseUrl}/v1/shelves/missing`, {
        headers: { "x-request-id": "r1" },
      });
      expect(notFound.status).toBe(404);
      expect(notFound.headers.get("content-type")).toBe("application/problem+json");
      expect(await notFound.json()).toEqual({
        type: "about:blank",
        title: "not_found",
        status: 404,
        detail: "shelf not found",
        instance: "r1",
        errors: [{ type: "google.rpc.ErrorInfo", reason: "SHELF_NOT_FOUND", domain: "library.example" }],
      });
      // The transcoder's own errors too.
      const badQuery = await fetch(`${server.baseUrl}/v1/shelves/s1/books?pageSize=x`);
      expect(badQuery.status).toBe(400);
      expect(await badQuery.json()).toMatchObject({
        title: "invalid_argument",
        status: 400,
        errors: [{ type: "google.rpc.BadRequest", fieldViolations: [{ field: "pageSize" }] }],
      });
    } finally {
      await server.close();
    }
  });

  it("makes up a request id when there is none", async () => {
    const server = await startLibraryServer();
    try {
      const response = await fetch(`${server.baseUrl}/v1/nowhere`);
      const id = response.headers.get("x-request-id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await response.json()).toMatchObject({ error: { requestId: id } });
    } finally {
      await server.close();
    }
  });

  it("writes proto field names and enum numbers when jsonOptions say so", async () => {
    const server = await startLibraryServer({
      jsonOptions: { useProtoFieldName: true, enumAsInteger: true },
    });
    try {
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books`);
      expect(await response.json()).toEqual({
        books: [
          {
            name: "shelves/s1/books/1",
            title: "One",
            tags: [],
            pages: null,
            genre: 0,
            publish_time: null,
            details: { publisher: "P", edition: null, former_titles: [], origin: null },
            labels: {},
            isbn: "0",
            ebook_url: null,
            print_run: null,
          },
        ],
        next_page_token: "",
      });
    } finally {
      await server.close();
    }
  });

  it("refuses bodies over 1 MiB by default", async () => {
    const server = await startLibraryServer();
    try {
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books/b1`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "x".repeat(1024 * 1024) }),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({
        error: { code: "resource_exhausted", message: "request body larger than 1048576 bytes" },
      });
    } finally {
      await server.close();
    }
  });

  it("serves HTTP/2", async () => {
    const server = await startLibraryServer({}, { http2: true });
    const session = connect(server.baseUrl);
    const call = (headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; json: unknown }>((resolve, reject) => {
        const stream = session.request(headers);
        let text = "";
        let responseHeaders: Record<string, unknown> = {};
        stream.setEncoding("utf8");
        stream.on("response", (h) => {
          responseHeaders = h;
        });
        stream.on("data", (chunk: string) => {
          text += chunk;
        });
        stream.on("end", () =>
          resolve({
            status: Number(responseHeaders[":status"]),
            headers: responseHeaders,
            json: JSON.parse(text),
          }),
        );
        stream.on("error", reject);
        stream.end(body);
      });
    try {
      const get = await call({ ":method": "GET", ":path": "/v1/shelves/s1" });
      expect(get).toMatchObject({ status: 200, json: { name: "shelves/s1", id: "s1", theme: "echo" } });
      const post = await call(
        { ":method": "POST", ":path": "/v1/shelves/s1/books?bookId=b2", "content-type": "application/json" },
        JSON.stringify({ title: "T" }),
      );
      expect(post).toMatchObject({ status: 201, json: { name: "shelves/s1/books/b2", title: "T" } });
      const denied = await call({
        ":method": "GET",
        ":path": "/v1/shelves/s1",
        authorization: "Bearer expired",
      });
      expect(denied).toMatchObject({
        status: 401,
        headers: { "www-authenticate": 'Bearer error="invalid_token"' },
        json: { error: { code: "unauthenticated" } },
      });
    } finally {
      session.close();
      await server.close();
    }
  });

  it("sends the next page as a Link header instead of nextPageToken with pageLinks", async () => {
    const server = await startLibraryServer({ pageLinks: true });
    try {
      const first = await fetch(`${server.baseUrl}/v1/shelves/s1/books?pageSize=1&tags=a&page_token=`);
      const body = (await first.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(["books"]);
      const link = first.headers.get("link");
      expect(link).toBe('</v1/shelves/s1/books?pageSize=1&tags=a&pageToken=page+2%2F%2B>; rel="next"');
      // The link, followed as it is, reaches the next page, which is the last: no Link.
      const target = /^<([^>]+)>/.exec(link ?? "")?.[1];
      const second = await fetch(`${server.baseUrl}${target}`);
      expect(second.status).toBe(200);
      expect(second.headers.get("link")).toBeNull();
      expect(server.received.at(-1)).toMatchObject({ request: { pageToken: "page 2/+", pageSize: 1 } });
    } finally {
      await server.close();
    }
  });

  it("keeps nextPageToken in the body without pageLinks", async () => {
    const server = await startLibraryServer();
    try {
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books?pageSize=1`);
      expect(response.headers.get("link")).toBeNull();
      expect(await response.json()).toMatchObject({ nextPageToken: "page 2/+" });
    } finally {
      await server.close();
    }
  });

  it("writes absent fields as null where the message lists them, nested messages too", async () => {
    const server = await startLibraryServer();
    try {
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books`);
      const [book] = ((await response.json()) as { books: Record<string, unknown>[] }).books;
      expect(Object.keys(book ?? {})).toEqual([
        "name",
        "title",
        "tags",
        "pages",
        "genre",
        "publishTime",
        "details",
        "labels",
        "isbn",
        "ebookUrl",
        "printRun",
      ]);
      expect(Object.keys(book?.details as object)).toEqual([
        "publisher",
        "edition",
        "formerTitles",
        "origin",
      ]);
    } finally {
      await server.close();
    }
  });
});
