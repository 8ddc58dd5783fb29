/**
 * The document against the transcoder it describes: the library API served over REST by
 * @folio/http-transcoder, called with the parameters the document lists, and every response
 * checked against the schema the document gives for it (JSON Schema 2020-12, with Ajv).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { create, type DescMessage } from "@bufbuild/protobuf";
import { createConnectRouter } from "@connectrpc/connect";
import { createHttpTranscoder } from "@folio/http-transcoder";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createOpenApiDocument,
  type OperationObject,
  type PathItemMethod,
  type ResponseObject,
  type SchemaObject,
} from "../src/index.js";
import { LibraryService, libraryRegistry } from "./library.js";

const document = createOpenApiDocument({
  services: [LibraryService],
  info: { title: "Library", version: "1" },
  successStatus: (method) => (method.name === "CreateBook" ? 201 : undefined),
});

const BookSchema = libraryRegistry.getMessage("library.v1.Book") as DescMessage;

/** A book with some fields set and others (sequel, isbn's oneof sibling, ...) absent. */
function book(name: string) {
  return create(BookSchema, {
    name,
    title: "The Library",
    pageCount: 300n,
    cover: new Uint8Array([1, 2, 3]),
    genre: 1,
    tags: ["classic"],
    ratings: { alice: 5 },
    publishedAt: { seconds: 1_700_000_000n, nanos: 0 },
    subtitle: "A tale",
    origin: { case: "isbn", value: "978-3-16-148410-0" },
    metadata: { edition: 2 },
    copies: 12n,
    authorId: "5a0c3f52-1d44-4d0b-9a57-31ab1cbb8a7e",
  } as never);
}

/** The requests the implementation received, as plain objects. */
const received: Record<string, unknown>[] = [];

let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  const router = createConnectRouter();
  router.service(LibraryService, {
    getBook: (req: { name: string }) => book(req.name),
    listBooks: (req: Record<string, unknown>) => {
      received.push(req);
      return { books: [book("shelves/1/books/1"), book("shelves/1/books/2")], nextPageToken: "" };
    },
    createBook: (req: { parent: string; title: string }) => ({
      name: `${req.parent}/books/new`,
      title: req.title,
    }),
    updateBook: (req: { book: unknown }) => req.book,
  } as never);
  const rest = createHttpTranscoder({
    router,
    successStatus: (method) => (method.name === "CreateBook" ? 201 : 200),
  });
  server = http.createServer(rest);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

/** Validates a value against a schema of the document, `$ref`s resolved in its components. */
function expectToMatch(schema: SchemaObject | undefined, value: unknown): void {
  expect(schema).toBeDefined();
  const validate = ajv.compile({ ...schema, components: document.components });
  const valid = validate(value);
  expect(valid, ajv.errorsText(validate.errors, { dataVar: "response" })).toBe(true);
}

function operation(id: string): { path: string; method: PathItemMethod; operation: OperationObject } {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item) as [PathItemMethod, OperationObject][]) {
      if (op.operationId === id) return { path, method, operation: op };
    }
  }
  throw new Error(`no operation ${id}`);
}

/** The schema of a documented response, failing when the status is not documented. */
function responseSchema(op: OperationObject, status: number): SchemaObject | undefined {
  const response = op.responses[String(status)] as ResponseObject | undefined;
  expect(response, `status ${status} is documented`).toBeDefined();
  return response?.content?.["application/json"]?.schema;
}

/** A value for a query parameter, from its schema. */
function sampleValue(schema: SchemaObject): string {
  const resolved =
    schema.$ref !== undefined
      ? (document.components.schemas[schema.$ref.replace("#/components/schemas/", "")] as SchemaObject)
      : schema;
  if (resolved.enum !== undefined) return String(resolved.enum[1] ?? resolved.enum[0]);
  if (resolved.format === "date-time") return "2024-05-01T12:00:00Z";
  if (resolved.pattern?.endsWith("s$")) return "1.5s";
  if (resolved.type === "integer" || resolved.format === "int64") return "7";
  if (resolved.type === "boolean") return "true";
  return "title";
}

describe("the document of the library API, against the transcoder serving it", () => {
  it("describes the response of a path with a multi-segment variable", async () => {
    const { operation: op } = operation("LibraryService_GetBook");
    const res = await fetch(`${baseUrl}/v1/shelves/1/books/2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.name).toBe("shelves/1/books/2");
    expect(body.sequel).toBeNull();
    expectToMatch(responseSchema(op, 200), body);

    // The check has teeth: a response without an always-present field, or with a wrong type, fails.
    const schema = { ...responseSchema(op, 200), components: document.components };
    const { sequel: _, ...withoutSequel } = body;
    expect(ajv.validate(schema, withoutSequel)).toBe(false);
    expect(ajv.validate(schema, { ...body, pageCount: 300 })).toBe(false);
  });

  it("describes query parameters the transcoder accepts, and the response it sends", async () => {
    const { operation: op } = operation("LibraryService_ListBooks");
    const query = new URLSearchParams();
    for (const parameter of op.parameters ?? []) {
      // `fields` selects what the answer holds: every field is wanted here.
      if (parameter.in !== "query" || parameter.name === "fields") continue;
      const items = parameter.schema.type === "array" ? (parameter.schema.items as SchemaObject) : undefined;
      query.append(parameter.name, sampleValue(items ?? parameter.schema));
      if (items !== undefined) query.append(parameter.name, sampleValue(items));
    }
    expect([...query.keys()].length).toBeGreaterThan(4);
    const res = await fetch(`${baseUrl}/v1/shelves/1/books?${query}`);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expectToMatch(responseSchema(op, 200), body);

    const request = received.at(-1) as Record<string, unknown>;
    expect(request.parent).toBe("shelves/1");
    expect(request.pageSize).toBe(7);
    expect((request.filter as Record<string, unknown>).genres).toEqual([1, 1]);
  });

  it("describes a response_body binding", async () => {
    const { operation: op } = operation("LibraryService_ListBooks_1");
    const res = await fetch(`${baseUrl}/v1/shelves/1/books:titles`);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(Array.isArray(body)).toBe(true);
    expectToMatch(responseSchema(op, 200), body);
  });

  it("describes a body of `*` and the success status", async () => {
    const { operation: op } = operation("LibraryService_CreateBook");
    const request = { title: "New", bookId: "b1" };
    expectToMatch(op.requestBody?.content["application/json"]?.schema, request);
    const res = await fetch(`${baseUrl}/v1/shelves/1/books`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expectToMatch(responseSchema(op, 201), body);
  });

  it("describes a body field, and the path variable inside it", async () => {
    const { operation: op } = operation("LibraryService_UpdateBook");
    const request = { title: "Renamed", genre: "GENRE_POETRY", tags: ["a", "b"] };
    expectToMatch(op.requestBody?.content["application/json"]?.schema, request);
    const res = await fetch(`${baseUrl}/v1/shelves/1/books/9?updateMask=title`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.name).toBe("shelves/1/books/9");
    expectToMatch(responseSchema(op, 200), body);
  });

  it("describes the errors of a malformed request, a body too large and a wrong media type", async () => {
    const list = operation("LibraryService_ListBooks").operation;
    const unknown = await fetch(`${baseUrl}/v1/shelves/1/books?colour=red`);
    expectToMatch(responseSchema(list, 400), await unknown.json());

    const create = operation("LibraryService_CreateBook").operation;
    const malformed = await fetch(`${baseUrl}/v1/shelves/1/books`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    expectToMatch(responseSchema(create, 400), await malformed.json());

    const text = await fetch(`${baseUrl}/v1/shelves/1/books`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "title",
    });
    expect(text.status).toBe(415);
    expectToMatch(responseSchema(create, 415), await text.json());

    const large = await fetch(`${baseUrl}/v1/shelves/1/books`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(large.status).toBe(413);
    expectToMatch(responseSchema(create, 413), await large.json());
  });
});
