// The HTTP requests the client sends over REST, as its google.api.http rules say, and how it reads
// the answers; seen by a fetch that stands in for the server.
import type { DescMethod, Message } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createFolioClient, FolioError } from "../src/index.js";
import { LibraryService } from "./library-service.js";

/** A request as the server would receive it. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: [string, string][];
  readonly body: unknown;
}

/** A client of the library over REST whose fetch records each request and answers with `answer`. */
function library(answer: (attempt: number) => Response = () => Response.json({})) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    seen.push({
      method: request.method,
      path: url.pathname,
      query: [...url.searchParams],
      body: text === "" ? undefined : JSON.parse(text),
    });
    return answer(seen.length);
  };
  const client = createFolioClient({
    baseUrl: "http://library.test/",
    protocol: "rest",
    services: [LibraryService],
    fetch,
    retry: { initialDelayMs: 1 },
  });
  return { client, seen };
}

function method(name: string): DescMethod {
  return LibraryService.methods.find((m) => m.name === name)!;
}

describe("REST requests from google.api.http rules", () => {
  it("fills a multi-segment variable keeping its slashes, and percent-encodes each segment", async () => {
    const { client, seen } = library();
    await client.call(method("GetBook"), { name: "shelves/a b/books/x+y?" });
    expect(seen).toEqual([
      { method: "GET", path: "/v1/shelves/a%20b/books/x%2By%3F", query: [], body: undefined },
    ]);
  });

  it("encodes a slash inside a single-segment variable, and keeps a custom verb", async () => {
    const { client, seen } = library();
    await client.call(method("SearchBooks"), { shelf: "a/b" });
    expect(seen[0]?.path).toBe("/v1/shelves/a%2Fb/books:search");
  });

  it("sends the other fields of a GET as query parameters in proto3 JSON names and values", async () => {
    const { client, seen } = library();
    await client.call(method("SearchBooks"), {
      shelf: "s",
      tags: ["x", "y z"],
      kind: 1,
      since: timestampFromDate(new Date("2026-01-02T03:04:05Z")),
      minCount: 9007199254740993n,
      filter: { author: "Ann", year: 0 },
      pageSize: 2,
    });
    expect(seen[0]?.query).toEqual([
      ["tags", "x"],
      ["tags", "y z"],
      ["kind", "KIND_NOVEL"],
      ["since", "2026-01-02T03:04:05Z"],
      ["minCount", "9007199254740993"],
      ["filter.author", "Ann"],
      ["pageSize", "2"],
    ]);
  });

  it('sends every field the path leaves as the body with body "*"', async () => {
    const { client, seen } = library();
    await client.call(method("CreateBook"), { shelf: "s", book: { title: "T" } });
    expect(seen).toEqual([
      { method: "POST", path: "/v1/shelves/s/books", query: [], body: { book: { title: "T" } } },
    ]);
  });

  it("sends the field a body rule names as the body, a nested path variable from inside it, the rest as query", async () => {
    const { client, seen } = library();
    await client.call(method("UpdateBook"), {
      book: { name: "shelves/1/books/2", title: "T" },
      requestId: "key-1",
    });
    expect(seen).toEqual([
      {
        method: "PATCH",
        path: "/v1/shelves/1/books/2",
        query: [["requestId", "key-1"]],
        body: { title: "T" },
      },
    ]);
  });

  it("sends a DELETE with its fields in the query string", async () => {
    const { client, seen } = library();
    await client.call(method("DeleteBook"), { name: "shelves/1/books/2", force: true });
    expect(seen).toEqual([
      { method: "DELETE", path: "/v1/shelves/1/books/2", query: [["force", "true"]], body: undefined },
    ]);
  });

  it("refuses, before sending anything, a path field left empty or a field no URL can carry", async () => {
    const { client, seen } = library();
    const empty = await client.call(method("GetBook"), {}).catch((error: unknown) => error);
    expect(empty).toBeInstanceOf(FolioError);
    expect((empty as FolioError).code).toBe(Code.InvalidArgument);
    expect((empty as FolioError).fieldViolations.map((v) => v.field)).toEqual(["name"]);
    const map = await client
      .call(method("SearchBooks"), { shelf: "s", labels: { a: "b" } })
      .catch((e: unknown) => e);
    expect((map as FolioError).fieldViolations.map((v) => v.field)).toEqual(["labels"]);
    expect(seen).toEqual([]);
  });
});

describe("REST answers", () => {
  it("reads a response_body answer into its field of the response", async () => {
    const { client } = library(() => Response.json("Dune"));
    const book = (await client.call(method("GetBookTitle"), { name: "shelves/1/books/2" })) as Message & {
      title: string;
    };
    expect(book.title).toBe("Dune");
  });

  it("takes the next page's token from the Link header, and pages with it", async () => {
    const { client, seen } = library((n) =>
      Response.json(
        { books: [{ name: `b${n}` }] },
        n < 3 ? { headers: { link: `</v1/shelves/s/books:search?pageToken=t${n}>; rel="next"` } } : {},
      ),
    );
    const names: string[] = [];
    const paged = client.paged as Record<string, (request: object) => AsyncIterable<{ name: string }>>;
    for await (const book of paged.searchBooks!({ shelf: "s", pageSize: 1 })) names.push(book.name);
    expect(names).toEqual(["b1", "b2", "b3"]);
    expect(seen.map((s) => s.query.find(([key]) => key === "pageToken")?.[1])).toEqual([
      undefined,
      "t1",
      "t2",
    ]);
  });

  it("reads an error envelope into a FolioError", async () => {
    const { client } = library(() =>
      Response.json(
        { error: { code: "not_found", message: "no such book", requestId: "r-1" } },
        { status: 404 },
      ),
    );
    const error = (await client
      .call(method("GetBook"), { name: "shelves/1/books/2" })
      .catch((e: unknown) => e)) as FolioError;
    expect(error).toBeInstanceOf(FolioError);
    expect([error.code, error.rawMessage, error.requestId]).toEqual([Code.NotFound, "no such book", "r-1"]);
  });
});
