import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { supportedContentCodings } from "../src/index.js";
import {
  EMPTY_BOOK_JSON,
  type LibraryServer,
  startLibraryServer,
  startRootFileServer,
} from "./library-server.js";

/** A request of a table row. */
interface Request {
  readonly method: string;
  readonly path: string;
  /** Sent as JSON unless a string. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A row of a table: a request, and what must come back. */
interface Row {
  readonly it: string;
  readonly request: Request;
  readonly status: number;
  /** The JSON response body, exactly. */
  readonly json?: unknown;
  /** The error of the envelope, partially: code, message, details. */
  readonly error?: { code: string; message?: unknown; details?: unknown };
  /** Response headers that must be present. */
  readonly headers?: Record<string, string>;
  /** The method called and its request message (JSON mapping, defaults left out). */
  readonly received?: { method: string; request: unknown };
  /** For an error: whether the implementation was called (and threw). */
  readonly reachesImplementation?: boolean;
}

let server: LibraryServer;

async function send(request: Request): Promise<Response> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    headers["content-type"] ??= "application/json";
  }
  return fetch(server.baseUrl + request.path, { method: request.method, headers, body });
}

async function check(row: Row): Promise<void> {
  const before = server.received.length;
  const response = await send(row.request);
  const text = await response.text();
  expect(response.status, text).toBe(row.status);
  expect(response.headers.get("content-type")).toBe("application/json");
  const json: unknown = JSON.parse(text);
  if (row.json !== undefined) {
    expect(json).toEqual(row.json);
  }
  if (row.error !== undefined) {
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toBeTruthy();
    expect(json).toEqual({
      error: {
        code: row.error.code,
        message: row.error.message ?? expect.any(String),
        requestId,
        details: row.error.details ?? expect.any(Array),
      },
    });
    // Never a stack trace.
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  }
  for (const [name, value] of Object.entries(row.headers ?? {})) {
    expect(response.headers.get(name), name).toBe(value);
  }
  if (row.received !== undefined) {
    const call = server.received.slice(before).at(-1);
    expect(call?.method).toBe(row.received.method);
    expect(call?.request).toEqual(row.received.request);
  } else if (row.status >= 400 && !row.reachesImplementation) {
    // A request the transcoder (or an interceptor) refuses never reaches the implementation.
    expect(server.received.length).toBe(before);
  }
}

const emptyBook = EMPTY_BOOK_JSON;

function badRequest(...violations: [field: string, description: unknown][]) {
  return [
    {
      type: "google.rpc.BadRequest",
      fieldViolations: violations.map(([field, description]) => ({ field, description })),
    },
  ];
}

describe("the transcoder", () => {
  beforeAll(async () => {
    server = await startLibraryServer({ maxBodyBytes: 1024 });
  });

  afterAll(async () => {
    await server.close();
  });

  describe("path templates", () => {
    it.each<Row>([
      {
        it: "binds a multi-segment variable ({name=shelves/*})",
        request: { method: "GET", path: "/v1/shelves/s1" },
        status: 200,
        json: { name: "shelves/s1", id: "s1", theme: "echo" },
        received: { method: "GetShelf", request: { name: "shelves/s1" } },
      },
      {
        it: "prefers a literal segment over a variable",
        request: { method: "GET", path: "/v1/shelves/default" },
        status: 200,
        json: { name: "shelves/default", id: "default", theme: "" },
        received: { method: "GetDefaultShelf", request: {} },
      },
      {
        it: "binds a nested field path ({shelf.id})",
        request: { method: "PATCH", path: "/v1/shelves/s7", body: { theme: "poetry" } },
        status: 200,
        json: { name: "", id: "s7", theme: "poetry" },
        received: { method: "UpdateShelf", request: { shelf: { id: "s7", theme: "poetry" } } },
      },
      {
        it: "serves additional bindings",
        request: { method: "GET", path: "/v1/books/b1" },
        status: 200,
        json: { ...emptyBook, name: "books/b1" },
        received: { method: "GetBook", request: { name: "books/b1" } },
      },
      {
        it: "matches a custom verb",
        request: { method: "POST", path: "/v1/shelves/s1/books/b1:publish", body: { notifyAuthor: true } },
        status: 200,
        json: { ...emptyBook, name: "shelves/s1/books/b1" },
        received: { method: "PublishBook", request: { name: "shelves/s1/books/b1", notifyAuthor: true } },
      },
      {
        it: "serves a custom HTTP method",
        request: { method: "SEARCH", path: "/v1/shelves/s1/books", body: { query: "whales" } },
        status: 200,
        json: {
          books: [{ ...emptyBook, name: "shelves/s1/books/found", title: "whales" }],
          nextPageToken: "",
        },
        received: { method: "SearchBooks", request: { parent: "shelves/s1", query: "whales" } },
      },
      {
        it: "captures the rest of the path with ** and keeps %2F encoded in it",
        request: { method: "GET", path: "/v1/files/docs/a%2Fb/read%20me.txt" },
        status: 200,
        json: { path: "docs/a%2Fb/read me.txt" },
        received: { method: "GetFile", request: { path: "docs/a%2Fb/read me.txt" } },
      },
      {
        it: "lets ** match zero segments",
        request: { method: "GET", path: "/v1/files" },
        status: 200,
        json: { path: "" },
      },
      {
        it: "decodes everything in a single-segment variable, %2F included",
        request: { method: "GET", path: "/v1/authors/Le%20Guin%2FUrsula%20%C3%A9" },
        status: 200,
        json: { author: "Le Guin/Ursula é" },
      },
      {
        it: "decodes unreserved characters in a multi-segment variable",
        request: { method: "GET", path: "/v1/shelves/sh%65lf" },
        status: 200,
        json: { name: "shelves/shelf", id: "shelf", theme: "echo" },
      },
      {
        it: "refuses malformed percent-encoding",
        request: { method: "GET", path: "/v1/authors/%E0%A4" },
        status: 400,
        error: { code: "invalid_argument", details: badRequest(["author", "malformed percent-encoding"]) },
      },
      {
        it: "answers 404 in the envelope for an unknown path",
        request: { method: "GET", path: "/v1/nothing/here" },
        status: 404,
        error: { code: "not_found", message: "no route for GET /v1/nothing/here", details: [] },
      },
      {
        it: "answers 404 for a trailing slash",
        request: { method: "GET", path: "/v1/shelves/s1/" },
        status: 404,
        error: { code: "not_found" },
      },
      {
        it: "answers 405 with Allow for a known path and another method",
        request: { method: "POST", path: "/v1/shelves/s1/books/b1" },
        status: 405,
        error: { code: "unimplemented", details: [] },
        headers: { allow: "DELETE, GET, HEAD, OPTIONS, PATCH, PUT" },
      },
      {
        it: "answers 405 with Allow for a method of another binding",
        request: { method: "GET", path: "/v1/shelves" },
        status: 405,
        error: { code: "unimplemented" },
        headers: { allow: "OPTIONS, POST" },
      },
      {
        it: 'matches no route for a path ending in a colon with no verb after it (Verb = ":" LITERAL)',
        request: { method: "GET", path: "/v1/shelves/s1/books/b1:" },
        status: 404,
        error: { code: "not_found", message: "no route for GET /v1/shelves/s1/books/b1:" },
      },
      {
        it: "matches no custom verb route for a colon with no verb after it",
        request: { method: "POST", path: "/v1/shelves/s1/books/b1:", body: {} },
        status: 404,
        error: { code: "not_found" },
      },
    ])("$it", check);
  });

  describe("request body", () => {
    it.each<Row>([
      {
        it: "maps body: <field> to that field, and the rest to the query string",
        request: {
          method: "POST",
          path: "/v1/shelves/s1/books?bookId=b9",
          body: {
            title: "Moby-Dick",
            tags: ["sea"],
            pages: 635,
            genre: "GENRE_FICTION",
            publishTime: "1851-10-18T00:00:00Z",
            isbn: "9780142437247",
            ebookUrl: "https://example.com/moby",
          },
        },
        status: 201,
        json: {
          ...emptyBook,
          name: "shelves/s1/books/b9",
          title: "Moby-Dick",
          tags: ["sea"],
          pages: 635,
          genre: "GENRE_FICTION",
          publishTime: "1851-10-18T00:00:00Z",
          isbn: "9780142437247",
          ebookUrl: "https://example.com/moby",
        },
        received: {
          method: "CreateBook",
          request: {
            parent: "shelves/s1",
            bookId: "b9",
            book: {
              title: "Moby-Dick",
              tags: ["sea"],
              pages: 635,
              genre: "GENRE_FICTION",
              publishTime: "1851-10-18T00:00:00Z",
              isbn: "9780142437247",
              ebookUrl: "https://example.com/moby",
            },
          },
        },
      },
      {
        it: "accepts proto field names in the body",
        request: { method: "POST", path: "/v1/shelves/s1/books?book_id=b2", body: { publish_time: null } },
        status: 201,
        received: { method: "CreateBook", request: { parent: "shelves/s1", bookId: "b2", book: {} } },
      },
      {
        it: "lets the path win over the body for a field both set (AIP-134 update)",
        request: {
          method: "PATCH",
          path: "/v1/shelves/s1/books/b1?updateMask=title,details.publisher",
          body: { name: "shelves/other/books/other", title: "New" },
        },
        status: 200,
        json: { ...emptyBook, name: "shelves/s1/books/b1", title: "New" },
        received: {
          method: "UpdateBook",
          request: {
            book: { name: "shelves/s1/books/b1", title: "New" },
            updateMask: "title,details.publisher",
          },
        },
      },
      {
        it: 'maps body: "*" to every field the path does not bind',
        request: {
          method: "PUT",
          path: "/v1/shelves/s1/books/b1",
          body: { title: "T", tags: ["a", "b"], details: { publisher: "P", edition: 2 } },
        },
        status: 200,
        json: {
          ...emptyBook,
          name: "shelves/s1/books/b1",
          title: "T",
          tags: ["a", "b"],
          details: { publisher: "P", edition: 2, formerTitles: [], origin: null },
        },
        received: {
          method: "ReplaceBook",
          request: {
            name: "shelves/s1/books/b1",
            title: "T",
            tags: ["a", "b"],
            details: { publisher: "P", edition: 2 },
          },
        },
      },
      {
        it: "maps body: <repeated field> to a JSON array",
        request: { method: "PUT", path: "/v1/shelves/s1/books/b1/tags", body: ["x", "y"] },
        status: 200,
        json: { ...emptyBook, name: "shelves/s1/books/b1", tags: ["x", "y"] },
        received: { method: "SetBookTags", request: { name: "shelves/s1/books/b1", tags: ["x", "y"] } },
      },
      {
        it: "sends only the response_body field",
        request: { method: "POST", path: "/v1/shelves", body: { name: "shelves/s3", id: "s3" } },
        status: 201,
        json: { name: "shelves/s3", id: "s3", theme: "" },
        received: { method: "CreateShelf", request: { shelf: { name: "shelves/s3", id: "s3" } } },
      },
      {
        it: "accepts an empty body as an empty message",
        request: { method: "POST", path: "/v1/shelves/s1/books/b1:publish", body: "" },
        status: 200,
        received: { method: "PublishBook", request: { name: "shelves/s1/books/b1" } },
      },
      {
        it: "accepts application/json with charset=utf-8, in any case",
        request: {
          method: "POST",
          path: "/v1/shelves/s1/books/b1:publish",
          body: { comment: "ok" },
          headers: { "content-type": "Application/JSON; Charset=UTF-8" },
        },
        status: 200,
        received: { method: "PublishBook", request: { name: "shelves/s1/books/b1", comment: "ok" } },
      },
      {
        it: "refuses an unknown field, naming it (no mass assignment)",
        request: {
          method: "POST",
          path: "/v1/shelves/s1/books?bookId=b1",
          body: { title: "T", orgId: "o2" },
        },
        status: 400,
        error: {
          code: "invalid_argument",
          message: 'request body: unknown field "orgId"',
          details: badRequest(["orgId", "unknown field"]),
        },
      },
      {
        it: "refuses an unknown nested field, naming its path",
        request: {
          method: "PUT",
          path: "/v1/shelves/s1/books/b1",
          body: { details: { publisher: "P", orgId: 1 } },
        },
        status: 400,
        error: {
          code: "invalid_argument",
          message: 'request body: unknown field "details.orgId"',
          details: badRequest(["details.orgId", "unknown field"]),
        },
      },
      {
        it: "refuses a value of the wrong type, naming the field",
        request: { method: "POST", path: "/v1/shelves/s1/books?bookId=b1", body: { pages: "many" } },
        status: 400,
        error: {
          code: "invalid_argument",
          message: expect.stringContaining('request body: invalid value for "pages"'),
          details: badRequest(["pages", expect.any(String)]),
        },
      },
      {
        it: "refuses a body that is not an object where fields are expected",
        request: { method: "PUT", path: "/v1/shelves/s1/books/b1", body: [1, 2] },
        status: 400,
        error: { code: "invalid_argument", message: "request body: expected a JSON object" },
      },
      {
        it: "refuses malformed JSON",
        request: { method: "PUT", path: "/v1/shelves/s1/books/b1", body: '{"title": ' },
        status: 400,
        error: { code: "invalid_argument", message: expect.stringContaining("request body: malformed JSON") },
      },
      {
        it: "refuses a Content-Type other than JSON with 415",
        request: {
          method: "PUT",
          path: "/v1/shelves/s1/books/b1",
          body: "title=T",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        status: 415,
        error: { code: "invalid_argument", message: expect.stringContaining("application/json") },
      },
      {
        it: "refuses a body in a coding it does not read with 415, naming those it reads",
        request: {
          method: "PUT",
          path: "/v1/shelves/s1/books/b1",
          body: "{}",
          headers: { "content-encoding": "compress" },
        },
        status: 415,
        error: {
          code: "invalid_argument",
          message: `unsupported Content-Encoding "compress"; send ${supportedContentCodings.join(", ")} or none`,
        },
        headers: { "accept-encoding": supportedContentCodings.join(", ") },
      },
      {
        it: "refuses a charset other than UTF-8 with 415",
        request: {
          method: "PUT",
          path: "/v1/shelves/s1/books/b1",
          body: "{}",
          headers: { "content-type": "application/json; charset=iso-8859-1" },
        },
        status: 415,
        error: { code: "invalid_argument" },
      },
      {
        it: "refuses a body larger than maxBodyBytes with 413",
        request: { method: "PUT", path: "/v1/shelves/s1/books/b1", body: { title: "x".repeat(2000) } },
        status: 413,
        error: { code: "resource_exhausted", message: "request body larger than 1024 bytes" },
      },
      {
        it: "refuses a body on a route without one",
        request: { method: "DELETE", path: "/v1/shelves/s1/books/b1", body: { force: true } },
        status: 400,
        error: { code: "invalid_argument", message: expect.stringContaining("takes no request body") },
      },
      {
        it: "ignores a Content-Type on a bodyless GET (it describes a body there is none of)",
        request: { method: "GET", path: "/v1/shelves/s1", headers: { "content-type": "text/plain" } },
        status: 200,
        json: { name: "shelves/s1", id: "s1", theme: "echo" },
        received: { method: "GetShelf", request: { name: "shelves/s1" } },
      },
      {
        it: "ignores a JSON Content-Type on a bodyless GET with a query string",
        request: {
          method: "GET",
          path: "/v1/shelves/s1/books?pageSize=5",
          headers: { "content-type": "application/json" },
        },
        status: 200,
        received: { method: "ListBooks", request: { parent: "shelves/s1", pageSize: 5 } },
      },
    ])("$it", check);

    it("refuses a body that is not UTF-8", async () => {
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books/b1`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: { code: "invalid_argument", message: "request body: not valid UTF-8" },
      });
    });

    it("refuses a body that grows past maxBodyBytes without Content-Length, and stops reading", async () => {
      const chunk = new TextEncoder().encode(`{"title": "${"x".repeat(600)}`);
      let pulls = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls++;
          // 60 MB in all, unless the server stops reading.
          if (pulls > 100_000) {
            controller.close();
            return;
          }
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books/b1`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(response.status).toBe(413);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("resource_exhausted");
      expect(pulls).toBeLessThan(100_000);
    });
  });

  describe("query string", () => {
    it.each<Row>([
      {
        it: "sets every kind of field the query string can carry",
        request: {
          method: "GET",
          path:
            "/v1/shelves/s1/books?pageSize=10&page_token=t1&tags=a&tags=b&filter.city=Berlin&filter.min_pages=100" +
            "&filter.genre=2&genre=GENRE_HISTORY&publishedAfter=2024-01-01T00:00:00Z&maxAge=1.5s" +
            "&readMask=title,details.publisher&minRating=4&available=true&includeDrafts=true&isbnPrefix=978" +
            "&minScore=0.5&cursor=AQID&maxResults=18446744073709551615&genres=1&genres=GENRE_HISTORY&author=Ann%20Lee",
        },
        status: 200,
        received: {
          method: "ListBooks",
          request: {
            parent: "shelves/s1",
            pageSize: 10,
            pageToken: "t1",
            tags: ["a", "b"],
            filter: { city: "Berlin", minPages: 100, genre: "GENRE_HISTORY" },
            genre: "GENRE_HISTORY",
            publishedAfter: "2024-01-01T00:00:00Z",
            maxAge: "1.500s",
            readMask: "title,details.publisher",
            minRating: 4,
            available: true,
            includeDrafts: true,
            isbnPrefix: "978",
            minScore: 0.5,
            cursor: "AQID",
            maxResults: "18446744073709551615",
            genres: ["GENRE_FICTION", "GENRE_HISTORY"],
            author: "Ann Lee",
          },
        },
      },
      {
        it: "writes every response field, nested ones too",
        request: { method: "GET", path: "/v1/shelves/s1/books" },
        status: 200,
        json: {
          books: [
            {
              ...emptyBook,
              name: "shelves/s1/books/1",
              title: "One",
              details: { publisher: "P", edition: null, formerTitles: [], origin: null },
            },
          ],
          nextPageToken: "",
        },
      },
      {
        it: "refuses an unknown query parameter, naming it",
        request: { method: "GET", path: "/v1/shelves/s1/books?orgId=o2" },
        status: 400,
        error: {
          code: "invalid_argument",
          message: expect.stringMatching(/^orgId: unknown query parameter/),
          details: badRequest(["orgId", expect.stringContaining("unknown query parameter")]),
        },
      },
      {
        it: "refuses a query parameter for a field the path binds",
        request: { method: "GET", path: "/v1/shelves/s1/books?parent=shelves/s2" },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["parent", "not allowed: the field is bound by the path"]),
        },
      },
      {
        it: "refuses a query parameter for a field the body binds",
        request: { method: "POST", path: "/v1/shelves/s1/books?book.title=T", body: {} },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["book.title", "not allowed: the field is bound by the request body"]),
        },
      },
      {
        it: 'refuses any query parameter with body: "*"',
        request: { method: "PUT", path: "/v1/shelves/s1/books/b1?title=T", body: {} },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["title", expect.stringContaining('body: "*"')]),
        },
      },
      {
        it: "refuses a value that does not parse",
        request: { method: "GET", path: "/v1/shelves/s1/books?pageSize=ten" },
        status: 400,
        error: { code: "invalid_argument", details: badRequest(["pageSize", 'invalid integer: "ten"']) },
      },
      {
        it: "refuses an out-of-range integer",
        request: { method: "GET", path: "/v1/shelves/s1/books?pageSize=2147483648" },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["pageSize", 'integer out of range: "2147483648"']),
        },
      },
      {
        it: "refuses an unknown enum name",
        request: { method: "GET", path: "/v1/shelves/s1/books?genre=POETRY" },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["genre", expect.stringContaining('"POETRY"')]),
        },
      },
      {
        it: "refuses an invalid Timestamp",
        request: { method: "GET", path: "/v1/shelves/s1/books?publishedAfter=yesterday" },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["publishedAfter", 'invalid Timestamp: "yesterday"']),
        },
      },
      {
        it: "refuses a non-repeated field given twice",
        request: { method: "GET", path: "/v1/shelves/s1/books?pageSize=1&page_size=2" },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["page_size", "set more than once, but the field is not repeated"]),
        },
      },
      {
        it: "refuses map and message fields",
        request: { method: "GET", path: "/v1/shelves/s1/books?labels=a&filter=b&filters=c" },
        status: 400,
        error: {
          code: "invalid_argument",
          message: expect.stringMatching(
            /^labels: a map field .*; filter: a message field .*; filters: a message field /,
          ),
          details: badRequest(
            ["labels", "a map field cannot be set from the query string"],
            ["filter", expect.stringContaining("a message field cannot be set")],
            ["filters", expect.stringContaining("a message field cannot be set")],
          ),
        },
      },
      {
        it: "reports every invalid parameter at once",
        request: { method: "GET", path: "/v1/shelves/s1/books?orgId=1&pageSize=x&filter.planet=Mars" },
        status: 400,
        error: {
          code: "invalid_argument",
          message: expect.stringMatching(
            /^orgId: unknown query parameter.*; pageSize: invalid integer.*; filter\.planet: /,
          ),
          details: badRequest(
            ["orgId", expect.any(String)],
            ["pageSize", expect.any(String)],
            ["filter.planet", expect.stringContaining('has no field "planet"')],
          ),
        },
      },
      {
        it: "sets one member of a oneof",
        request: { method: "GET", path: "/v1/shelves/s1/books?choiceText=x&filter.country=FR" },
        status: 200,
        received: {
          method: "ListBooks",
          request: { parent: "shelves/s1", choiceText: "x", filter: { country: "FR" } },
        },
      },
      {
        it: "refuses two members of a oneof, naming both",
        request: { method: "GET", path: "/v1/shelves/s1/books?choiceFlag=true&choice_text=x" },
        status: 400,
        error: {
          code: "invalid_argument",
          message: 'choice_text: at most one field of oneof "choice" may be set, and "choiceFlag" is set too',
          details: badRequest([
            "choice_text",
            'at most one field of oneof "choice" may be set, and "choiceFlag" is set too',
          ]),
        },
      },
      {
        it: "refuses two members of a oneof of a nested message, naming both",
        request: {
          method: "GET",
          path: "/v1/shelves/s1/books?filter.region=EU&filter.city=Paris&filter.country=FR",
        },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest([
            "filter.country",
            'at most one field of oneof "place" may be set, and "filter.region" is set too',
          ]),
        },
      },
      {
        it: "accepts the largest float32 as Go and Java print it, for float and FloatValue",
        request: {
          method: "GET",
          path: "/v1/shelves/s1/books?maxWeight=3.4028235e38&minWeight=-340282350000000000000000000000000000000",
        },
        status: 200,
        received: {
          method: "ListBooks",
          request: {
            parent: "shelves/s1",
            maxWeight: 3.4028234663852886e38,
            minWeight: -3.4028234663852886e38,
          },
        },
      },
      {
        it: "accepts the largest float32 in the other spellings, for float and FloatValue",
        request: {
          method: "GET",
          path: "/v1/shelves/s1/books?maxWeight=340282350000000000000000000000000000000&minWeight=3.4028235e38",
        },
        status: 200,
        received: {
          method: "ListBooks",
          request: {
            parent: "shelves/s1",
            maxWeight: 3.4028234663852886e38,
            minWeight: 3.4028234663852886e38,
          },
        },
      },
      {
        it: "reads + in the query string as a space (application/x-www-form-urlencoded)",
        request: { method: "GET", path: "/v1/shelves/s1/books?author=Ann+Lee&filter.city=New+York" },
        status: 200,
        received: {
          method: "ListBooks",
          request: { parent: "shelves/s1", author: "Ann Lee", filter: { city: "New York" } },
        },
      },
      {
        it: "reads %2B in the query string as a plus, and %20 as a space",
        request: {
          method: "GET",
          path: "/v1/shelves/s1/books?author=C%2B%2B&pageToken=ab%2Bc%2F%3D&tags=a%20b+c",
        },
        status: 200,
        received: {
          method: "ListBooks",
          request: { parent: "shelves/s1", author: "C++", pageToken: "ab+c/=", tags: ["a b c"] },
        },
      },
      {
        it: "refuses a float that rounds to an infinite float32, for float and FloatValue",
        request: { method: "GET", path: "/v1/shelves/s1/books?maxWeight=3.5e38&minWeight=-1e39" },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(
            ["maxWeight", 'number out of range: "3.5e38"'],
            ["minWeight", 'number out of range: "-1e39"'],
          ),
        },
      },
      {
        it: "takes a double beyond float32 range",
        request: { method: "GET", path: "/v1/shelves/s1/books?minScore=3.5e38" },
        status: 200,
        received: { method: "ListBooks", request: { parent: "shelves/s1", minScore: 3.5e38 } },
      },
    ])("$it", check);
  });

  describe("handler errors, interceptors and headers", () => {
    it.each<Row>([
      {
        it: "sends a ConnectError of the implementation with its status and details",
        request: { method: "GET", path: "/v1/shelves/missing" },
        status: 404,
        error: {
          code: "not_found",
          message: "shelf not found",
          details: [{ type: "google.rpc.ErrorInfo", reason: "SHELF_NOT_FOUND", domain: "library.example" }],
        },
        reachesImplementation: true,
      },
      {
        it: "forwards the metadata of a ConnectError as headers",
        request: { method: "GET", path: "/v1/shelves/forbidden" },
        status: 403,
        error: { code: "permission_denied", message: "not your shelf", details: [] },
        headers: { "x-reason": "policy" },
        reachesImplementation: true,
      },
      {
        it: "hides the message of a plain Error (500 internal)",
        request: { method: "GET", path: "/v1/shelves/crash" },
        status: 500,
        error: { code: "internal", message: "internal error", details: [] },
        reachesImplementation: true,
      },
      {
        it: "runs the interceptors of the router: an error with WWW-Authenticate",
        request: { method: "GET", path: "/v1/shelves/s1", headers: { authorization: "Bearer expired" } },
        status: 401,
        error: { code: "unauthenticated", message: "access token expired", details: [] },
        headers: { "www-authenticate": 'Bearer error="invalid_token"' },
      },
      {
        it: "runs the interceptors of the router and forwards response headers",
        request: { method: "GET", path: "/v1/shelves/s1", headers: { "x-tenant": "acme" } },
        status: 200,
        headers: { "x-intercepted": "yes", "x-tenant": "acme" },
      },
      {
        it: "uses the X-Request-Id of the request in the envelope and the response",
        request: { method: "GET", path: "/v1/shelves/missing", headers: { "x-request-id": "req-42" } },
        status: 404,
        error: { code: "not_found" },
        headers: { "x-request-id": "req-42" },
        reachesImplementation: true,
      },
    ])("$it", check);

    it("forwards request headers to the implementation", async () => {
      const before = server.received.length;
      const response = await send({
        method: "GET",
        path: "/v1/shelves/s1",
        headers: { authorization: "Bearer good", "x-request-id": "req-7", "x-custom": "1" },
      });
      expect(response.status).toBe(200);
      const header = server.received[before]?.header;
      expect(header).toMatchObject({
        authorization: "Bearer good",
        "x-request-id": "req-7",
        "x-custom": "1",
      });
      // The REST request's own Content-Type is not the call's: a Connect call to the handler has
      // its own.
      expect(header?.["content-type"]).toBe("application/proto");
    });

    it("calls unary and streaming methods as Connect calls of the router's handlers", async () => {
      const before = server.received.length;
      const update = await send({ method: "PATCH", path: "/v1/shelves/s7", body: { theme: "poetry" } });
      expect(update.status).toBe(200);
      const watch = await fetch(`${server.baseUrl}/v1/shelves/s1/books:watch?count=1`);
      expect(watch.status).toBe(200);
      await watch.text();
      const seen = server.received
        .slice(before)
        .map((call) => [call.method, call.requestMethod, call.protocolName]);
      // Through a handler, each call is a Connect call: POST, whatever the REST method was.
      expect(seen).toEqual([
        ["UpdateShelf", "POST", "connect"],
        ["WatchBooks", "POST", "connect"],
      ]);
    });

    it("serves the same implementation over the Connect protocol", async () => {
      const response = await fetch(`${server.baseUrl}/transcodertest.v1.LibraryService/GetShelf`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer expired" },
        body: JSON.stringify({ name: "shelves/s1" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    });
  });

  describe("a template that is ** alone (/{path=**})", () => {
    let root: Awaited<ReturnType<typeof startRootFileServer>>;
    beforeAll(async () => {
      root = await startRootFileServer();
    });
    afterAll(async () => {
      await root.close();
    });

    it.each([
      { path: "/", status: 200, json: { path: "" } },
      { path: "/a", status: 200, json: { path: "a" } },
      { path: "/a/b%20c", status: 200, json: { path: "a/b c" } },
      // An empty segment matches nothing but a literal, as everywhere else.
      {
        path: "/a/",
        status: 404,
        json: expect.objectContaining({ error: expect.objectContaining({ code: "not_found" }) }),
      },
      {
        path: "//",
        status: 404,
        json: expect.objectContaining({ error: expect.objectContaining({ code: "not_found" }) }),
      },
    ])("GET $path: $status", async ({ path, status, json }) => {
      const response = await fetch(root.baseUrl + path);
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual(json);
    });
  });

  describe("google.api.HttpBody", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    it.each([
      {
        it: "passes the raw request body and its Content-Type to an HttpBody field",
        request: { method: "PUT", path: "/v1/shelves/s1/cover", contentType: "image/png", body: png },
        status: 200,
        contentType: "text/plain",
        body: new TextEncoder().encode("stored 8 bytes"),
        received: {
          method: "UploadCover",
          request: { name: "shelves/s1", cover: { contentType: "image/png", data: "iVBORw0KGgo=" } },
        },
      },
      {
        it: "sends an HttpBody response as raw bytes with its content type",
        request: { method: "GET", path: "/v1/shelves/s1/cover" },
        status: 200,
        contentType: "image/png",
        body: png,
      },
      {
        it: "sends an HttpBody that names no content type as application/octet-stream",
        request: { method: "GET", path: "/v1/shelves/s2/cover" },
        status: 200,
        contentType: "application/octet-stream",
        body: new Uint8Array([1, 2, 3]),
      },
      {
        it: 'takes any content type for an HttpBody request with body: "*", and echoes it',
        request: {
          method: "POST",
          path: "/v1/echo",
          contentType: "text/csv; charset=utf-8",
          body: "a,b\n1,2\n",
        },
        status: 200,
        contentType: "text/csv; charset=utf-8",
        body: new TextEncoder().encode("a,b\n1,2\n"),
        received: {
          method: "Echo",
          request: { contentType: "text/csv; charset=utf-8", data: "YSxiCjEsMgo=" },
        },
      },
    ])("$it", async ({ request, status, contentType, body, received }) => {
      const before = server.received.length;
      const response = await fetch(server.baseUrl + request.path, {
        method: request.method,
        headers: request.contentType === undefined ? {} : { "content-type": request.contentType },
        body: request.body,
      });
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe(contentType);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(body);
      if (received !== undefined) {
        expect(server.received.slice(before).at(-1)).toMatchObject(received);
      }
    });

    it.each<Row>([
      {
        it: "refuses an HttpBody in a coding it does not read with 415",
        request: { method: "POST", path: "/v1/echo", body: "x", headers: { "content-encoding": "deflate" } },
        status: 415,
        error: { code: "invalid_argument" },
      },
      {
        it: "refuses an HttpBody larger than maxBodyBytes with 413",
        request: {
          method: "POST",
          path: "/v1/echo",
          body: "x".repeat(2000),
          headers: { "content-type": "text/plain" },
        },
        status: 413,
        error: { code: "resource_exhausted" },
      },
      {
        it: 'refuses query parameters with an HttpBody request of body: "*"',
        request: {
          method: "POST",
          path: "/v1/echo?contentType=text/html",
          body: "x",
          headers: { "content-type": "text/plain" },
        },
        status: 400,
        error: {
          code: "invalid_argument",
          details: badRequest(["contentType", expect.stringContaining('body: "*"')]),
        },
      },
    ])("$it", check);
  });

  describe("server streaming", () => {
    const books = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        ...emptyBook,
        name: `shelves/s1/books/${i + 1}`,
        title: `Book ${i + 1}`,
      }));

    async function stream(path: string, headers: Record<string, string> = {}) {
      const response = await fetch(server.baseUrl + path, { headers });
      return { response, text: await response.text() };
    }

    it.each([
      {
        it: "writes newline-delimited JSON by default, one {result} a line",
        accept: undefined,
        contentType: "application/x-ndjson",
        body: (count: number) =>
          books(count)
            .map((book) => `${JSON.stringify({ result: book })}\n`)
            .join(""),
      },
      {
        it: "writes Server-Sent Events when the client accepts text/event-stream",
        accept: "text/event-stream",
        contentType: "text/event-stream",
        body: (count: number) =>
          books(count)
            .map((book) => `data: ${JSON.stringify(book)}\n\n`)
            .join(""),
      },
    ])("$it", async ({ accept, contentType, body }) => {
      const { response, text } = await stream(
        "/v1/shelves/s1/books:watch?count=3",
        accept === undefined ? {} : { accept },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(contentType);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      // Headers the handler set before its first message, and the interceptors' own.
      expect(response.headers.get("x-watch")).toBe("started");
      expect(response.headers.get("x-intercepted")).toBe("yes");
      expect(text).toBe(body(3));
    });

    it.each([
      {
        it: "ends an NDJSON stream that fails after it started with the error envelope as the last line",
        accept: undefined,
        last: (error: string) => `${error}\n`,
      },
      {
        it: "ends an SSE stream that fails after it started with an error event",
        accept: "text/event-stream",
        last: (error: string) => `event: error\ndata: ${error}\n\n`,
      },
    ])("$it", async ({ accept, last }) => {
      const { response, text } = await stream(
        "/v1/shelves/s1/books:watch?count=2&fail=true",
        accept === undefined ? { "x-request-id": "stream-1" } : { accept, "x-request-id": "stream-1" },
      );
      expect(response.status).toBe(200);
      const envelope = {
        error: {
          code: "unavailable",
          message: "shelf closed",
          requestId: "stream-1",
          details: [{ type: "google.rpc.ErrorInfo", reason: "SHELF_CLOSED", domain: "library.example" }],
        },
      };
      expect(text.endsWith(last(JSON.stringify(envelope)))).toBe(true);
      expect(text.split(accept === undefined ? "\n" : "\n\n").filter((part) => part !== "")).toHaveLength(3);
    });

    it("answers an error before the first message as a unary call would: its status and the envelope", async () => {
      const { response, text } = await stream("/v1/shelves/forbidden/books:watch?count=2");
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(JSON.parse(text)).toMatchObject({
        error: { code: "permission_denied", message: "not your shelf" },
      });
    });

    it("sends an empty stream as a 200 with no message", async () => {
      const { response, text } = await stream("/v1/shelves/s1/books:watch?count=0");
      expect(response.status).toBe(200);
      expect(text).toBe("");
    });

    it("streams google.api.HttpBody chunks as one body, of the first chunk's content type", async () => {
      const { response, text } = await stream("/v1/shelves/s1:download");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv");
      expect(text).toBe("title,pages\nOne,100\nTwo,200\n");
    });

    it("cuts a google.api.HttpBody stream that fails after it started off, so the client sees it broken", async () => {
      // Depending on how far the bytes got, the headers or the body arrive broken: either fails.
      await expect(
        fetch(`${server.baseUrl}/v1/shelves/s1:download?fail=true`).then((response) => response.text()),
      ).rejects.toThrow();
    });

    it("stops the handler when the client goes away", async () => {
      const controller = new AbortController();
      const response = await fetch(`${server.baseUrl}/v1/shelves/s1/books:watch?count=100000`, {
        signal: controller.signal,
      });
      const reader = response.body?.getReader();
      await reader?.read();
      controller.abort();
      await vi.waitFor(() => expect(server.cancelled).toContain("WatchBooks"), { timeout: 10_000 });
      // The server keeps serving other requests.
      expect((await fetch(`${server.baseUrl}/v1/shelves/s1`)).status).toBe(200);
    });
  });
});
