import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import {
  createOpenApiDocument,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type SchemaObject,
} from "../src/index.js";
import { CoverService, LibraryService } from "./library.js";

const document = createOpenApiDocument({
  services: [LibraryService],
  info: { title: "Library", version: "1" },
});

function operationById(id: string): { path: string; method: string; operation: OperationObject } {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if ((operation as OperationObject).operationId === id) {
        return { path, method, operation: operation as OperationObject };
      }
    }
  }
  throw new Error(`no operation ${id}`);
}

function schemaNamed(name: string, doc: OpenApiDocument = document): SchemaObject {
  const schema = doc.components.schemas[name];
  if (schema === undefined) throw new Error(`no schema ${name}`);
  return schema;
}

function successSchema(operation: OperationObject): SchemaObject | undefined {
  const [status] = Object.keys(operation.responses);
  return (operation.responses[status as string] as ResponseObject).content?.["application/json"]?.schema;
}

function parameter(operation: OperationObject, name: string): ParameterObject | undefined {
  return operation.parameters?.find((p) => p.name === name);
}

describe("a document of descriptors built at run time", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("has an operation per route, additional bindings included", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(
        ([method, operation]) =>
          `${method.toUpperCase()} ${path} ${(operation as OperationObject).operationId}`,
      ),
    );
    // Multi-segment variables (`{name=shelves/*/books/*}`) become one path parameter.
    expect(operations).toEqual([
      "GET /v1/{name} LibraryService_GetBook",
      "GET /v1/books/{name} LibraryService_GetBook_1",
      "GET /v1/{parent}/books LibraryService_ListBooks",
      "POST /v1/{parent}/books LibraryService_CreateBook",
      "GET /v1/{parent}/books:titles LibraryService_ListBooks_1",
      "PATCH /v1/{book.name} LibraryService_UpdateBook",
    ]);
    expect(operationById("LibraryService_GetBook_1").operation.summary).toBe("Get book");
    expect(operationById("LibraryService_ListBooks_1").operation.summary).toBe("List books");
  });

  it("documents no security when no security options are given", () => {
    expect(document.components.securitySchemes).toBeUndefined();
    expect(operationById("LibraryService_GetBook").operation.security).toBeUndefined();
  });

  it("takes comments from the descriptors' own source info when no other source is given", () => {
    expect(operationById("LibraryService_GetBook").operation.description).toContain("Returns one book.");
    expect(document.tags).toEqual([{ name: "LibraryService", description: "Lends books." }]);
    const book = schemaNamed("Book");
    expect(book.description).toBe("A book of a shelf.");
    expect(book.properties?.title?.description).toBe("Title of the book.\nShown on the cover.");
    expect(schemaNamed("Genre").description).toBe(
      "Kinds of books.\n\n- `GENRE_FICTION`: Novels and stories.",
    );
  });

  describe("path parameters", () => {
    it("are required, named by their field path, and typed by their field", () => {
      const { operation } = operationById("LibraryService_UpdateBook");
      const bookName = parameter(operation, "book.name");
      expect(bookName).toMatchObject({ in: "path", required: true, schema: { type: "string" } });
      expect(bookName?.schema.pattern).toBe("^shelves/[^/]+/books/[^/]+$");
      expect(bookName?.description).toContain("Format: `shelves/*/books/*`");
      expect(parameter(operationById("LibraryService_GetBook_1").operation, "name")?.schema).toEqual({
        type: "string",
      });
      for (const id of ["LibraryService_GetBook", "LibraryService_GetBook_1", "LibraryService_ListBooks"]) {
        const op = operationById(id).operation;
        expect(op.parameters?.filter((p) => p.in === "path")).toHaveLength(1);
      }
    });
  });

  describe("query parameters", () => {
    const { operation } = operationById("LibraryService_ListBooks");
    const query = (operation.parameters ?? []).filter((p) => p.in === "query");

    it("are the fields that the path and body leave unbound, nested ones by their dotted path", () => {
      expect(query.map((p) => p.name)).toEqual([
        "pageSize",
        "filter.genres",
        "filter.since",
        "filter.inPrint",
        "readMask",
        "minRating",
        "fields",
      ]);
    });

    it("are typed by the ProtoJSON form of their field", () => {
      expect(parameter(operation, "pageSize")?.schema).toEqual({ type: "integer", format: "int32" });
      expect(parameter(operation, "filter.genres")).toMatchObject({
        style: "form",
        explode: true,
        schema: { type: "array", items: { $ref: "#/components/schemas/Genre" } },
      });
      expect(parameter(operation, "filter.since")?.schema).toEqual({ type: "string", format: "date-time" });
      expect(parameter(operation, "filter.inPrint")?.schema).toEqual({ type: "boolean" });
      expect(parameter(operation, "readMask")?.schema).toMatchObject({ type: "string" });
      expect(parameter(operation, "minRating")?.schema).toEqual({ type: "integer", format: "int32" });
    });

    it("leave out maps and stop at recursive messages", () => {
      expect(query.some((p) => p.name.startsWith("labels"))).toBe(false);
      expect(query.some((p) => p.name.startsWith("filter.parent"))).toBe(false);
    });

    it("are none for a body of `*`, and the rest of the request for a body field", () => {
      const notHeaders = (parameters: { in: string; name: string }[] | undefined) =>
        (parameters ?? []).filter((p) => p.in !== "header");
      expect(
        notHeaders(operationById("LibraryService_CreateBook").operation.parameters).map((p) => p.in),
      ).toEqual(["path"]);
      const update = operationById("LibraryService_UpdateBook").operation;
      expect(notHeaders(update.parameters).map((p) => `${p.in} ${p.name}`)).toEqual([
        "path book.name",
        "query updateMask",
      ]);
    });
  });

  describe("request bodies", () => {
    it("for `*`, are the request without the fields bound by the path", () => {
      const body =
        operationById("LibraryService_CreateBook").operation.requestBody?.content["application/json"]?.schema;
      expect(body?.$ref).toBeUndefined();
      expect(Object.keys(body?.properties ?? {})).toEqual(["bookId", "title"]);
      expect(body?.required).toEqual(["title"]);
    });

    it("are required only when they hold a field the method requires", () => {
      expect(operationById("LibraryService_CreateBook").operation.requestBody?.required).toBe(true);
      expect(operationById("LibraryService_UpdateBook").operation.requestBody?.required).toBe(true);
    });

    it("for a field, are that field's request schema", () => {
      const update = operationById("LibraryService_UpdateBook").operation;
      expect(update.requestBody?.content["application/json"]?.schema).toEqual({
        $ref: "#/components/schemas/BookInput",
      });
    });
  });

  describe("responses", () => {
    it("are the response message, or the `response_body` field of it", () => {
      expect(successSchema(operationById("LibraryService_ListBooks").operation)).toEqual({
        $ref: "#/components/schemas/ListBooksResponse",
      });
      expect(successSchema(operationById("LibraryService_ListBooks_1").operation)).toEqual({
        type: "array",
        items: { $ref: "#/components/schemas/Book" },
      });
    });
  });

  describe("schemas in the ProtoJSON mapping", () => {
    const book = schemaNamed("Book");
    const input = schemaNamed("BookInput");
    const p = book.properties ?? {};

    it("name properties in lowerCamelCase", () => {
      expect(Object.keys(p)).toEqual([
        "name",
        "title",
        "pageCount",
        "cover",
        "genre",
        "tags",
        "ratings",
        "publishedAt",
        "readTime",
        "subtitle",
        "isbn",
        "doi",
        "sequel",
        "metadata",
        "copies",
        "secret",
        "authorId",
      ]);
    });

    it("map scalars, enums, lists and maps", () => {
      expect(p.pageCount).toMatchObject({ type: "string", format: "int64" });
      expect(p.copies).toMatchObject({ type: "string", format: "uint64" });
      expect(p.cover).toMatchObject({ type: "string", contentEncoding: "base64" });
      expect(p.genre).toMatchObject({ $ref: "#/components/schemas/Genre" });
      expect(schemaNamed("Genre")).toMatchObject({
        type: "string",
        enum: ["GENRE_UNSPECIFIED", "GENRE_FICTION", "GENRE_POETRY"],
      });
      expect(p.tags).toMatchObject({ type: "array", items: { type: "string" } });
      expect(p.ratings).toMatchObject({
        type: "object",
        additionalProperties: { type: "integer", format: "int32" },
      });
      // The format of its protovalidate rule, the empty string (not set) exempt.
      expect(p.authorId).toMatchObject({ type: "string", anyOf: [{ const: "" }, { format: "uuid" }] });
    });

    it("map the well-known types to their JSON forms, nullable in responses", () => {
      expect(p.publishedAt).toMatchObject({ type: ["string", "null"], format: "date-time", readOnly: true });
      expect(p.readTime).toMatchObject({ type: ["string", "null"], pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$" });
      expect(p.subtitle).toMatchObject({ type: ["string", "null"] });
      expect(p.metadata).toMatchObject({ type: ["object", "null"], additionalProperties: true });
    });

    it("mark oneof members nullable in responses and say which ones exclude each other", () => {
      expect(p.isbn).toMatchObject({ type: ["string", "null"] });
      expect(p.isbn?.description).toContain("at most one of `isbn`, `doi` is set");
    });

    it("reference recursive messages", () => {
      expect(p.sequel).toEqual({ anyOf: [{ $ref: "#/components/schemas/Book" }, { type: "null" }] });
      // A request may send null for a field that can be absent: the JSON mapping reads it as unset.
      expect(input.properties?.sequel).toEqual({
        anyOf: [{ $ref: "#/components/schemas/BookInput" }, { type: "null" }],
      });
    });

    it("have a request variant with `required` from REQUIRED, null only where a field can be absent", () => {
      expect(book.required).toEqual(Object.keys(p));
      expect(input.required).toEqual(["title"]);
      expect(input.properties?.title).toMatchObject({ type: "string" });
      expect(input.properties?.publishedAt).toMatchObject({ type: ["string", "null"], readOnly: true });
      expect(input.properties?.secret).toMatchObject({ writeOnly: true });
      expect(p.secret).toMatchObject({ writeOnly: true });
    });
  });

  it("follows the transcoder's JSON options: proto field names, enum numbers in responses", () => {
    const protoNames = createOpenApiDocument({
      services: [LibraryService],
      info: { title: "Library", version: "1" },
      jsonOptions: { useProtoFieldName: true, enumAsInteger: true },
    });
    const book = schemaNamed("Book", protoNames);
    expect(Object.keys(book.properties ?? {})).toContain("page_count");
    expect(book.properties?.genre).toEqual({ $ref: "#/components/schemas/GenreNumber" });
    expect(schemaNamed("GenreNumber", protoNames)).toMatchObject({ type: "integer", enum: [0, 1, 2] });
    expect(schemaNamed("BookInput", protoNames).properties?.genre).toEqual({
      $ref: "#/components/schemas/Genre",
    });
    const list = Object.values(protoNames.paths)
      .map((item) => item.get)
      .find((op) => op?.operationId === "LibraryService_ListBooks");
    expect(list?.parameters?.map((p) => p.name)).toContain("filter.in_print");
  });

  it("can describe responses that leave absent fields out", () => {
    const sparse = createOpenApiDocument({
      services: [LibraryService],
      info: { title: "Library", version: "1" },
      responseFieldsAlwaysPresent: false,
    });
    const book = schemaNamed("Book", sparse);
    expect(book.required).toBeUndefined();
    expect(book.properties?.publishedAt).toMatchObject({ type: "string", format: "date-time" });
  });

  it("documents only the declared errors when common ones are turned off", () => {
    const bare = createOpenApiDocument({
      services: [LibraryService],
      info: { title: "Library", version: "1" },
      errorResponses: () => [{ code: "not_found", condition: "No such book." }],
      commonErrorResponses: () => [],
    });
    const get = bare.paths[operationById("LibraryService_GetBook").path]?.get;
    expect(Object.keys(get?.responses ?? {})).toEqual(["200", "304", "404"]);
  });

  it("rejects an error code that is not a Connect code", () => {
    expect(() =>
      createOpenApiDocument({
        services: [LibraryService],
        info: { title: "Library", version: "1" },
        errorResponses: () => [{ code: "NOT_FOUND", condition: "No such book." }],
      }),
    ).toThrow(/"NOT_FOUND" is not a Connect error code/);
  });

  describe("security schemes", () => {
    const requiredScope = (method: { name: string }) =>
      method.name === "GetBook" ? "books:read" : undefined;
    const secured = (security: Parameters<typeof createOpenApiDocument>[0]["security"]) =>
      createOpenApiDocument({
        services: [LibraryService],
        info: { title: "Library", version: "1" },
        security,
      });
    const getBook = (doc: OpenApiDocument) =>
      Object.values(doc.paths)
        .map((item) => item.get)
        .find((op) => op?.operationId === "LibraryService_GetBook");

    it("puts a bearer token's scope in the descriptions, as OpenAPI defines no scopes for http schemes", () => {
      const doc = secured({ requiredScope });
      expect(doc.components.securitySchemes).toEqual({
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "Scopes:\n\n- `books:read`: Needed by `LibraryService_GetBook`, `LibraryService_GetBook_1`.",
        },
      });
      expect(
        secured({
          requiredScope,
          description: "Tokens of the library.",
          scopes: { "books:read": "Read books." },
        }).components.securitySchemes?.bearerAuth?.description,
      ).toBe("Tokens of the library.\n\nScopes:\n\n- `books:read`: Read books.");
      expect(getBook(doc)?.security).toEqual([{ bearerAuth: [] }]);
      expect(getBook(doc)?.description).toContain("`books:read`");
    });

    it("lists the scopes in every OAuth 2.0 flow and requires them per operation", () => {
      const doc = secured({
        requiredScope,
        scopes: { "books:read": "Read books." },
        scheme: {
          type: "oauth2",
          flows: {
            clientCredentials: { tokenUrl: "https://auth.example.com/token" },
            authorizationCode: {
              authorizationUrl: "https://auth.example.com/authorize",
              tokenUrl: "https://auth.example.com/token",
            },
          },
        },
      });
      const scopes = { "books:read": "Read books." };
      expect(doc.components.securitySchemes).toEqual({
        oauth2: {
          type: "oauth2",
          flows: {
            clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes },
            authorizationCode: {
              authorizationUrl: "https://auth.example.com/authorize",
              tokenUrl: "https://auth.example.com/token",
              scopes,
            },
          },
        },
      });
      expect(getBook(doc)?.security).toEqual([{ oauth2: ["books:read"] }]);
    });

    it("requires the scopes of an OpenID Connect provider per operation and lists them in the description", () => {
      const doc = secured({
        requiredScope,
        schemeName: "oidc",
        scheme: {
          type: "openIdConnect",
          openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration",
        },
      });
      expect(doc.components.securitySchemes?.oidc).toMatchObject({
        type: "openIdConnect",
        openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration",
        description:
          "Scopes:\n\n- `books:read`: Needed by `LibraryService_GetBook`, `LibraryService_GetBook_1`.",
      });
      expect(getBook(doc)?.security).toEqual([{ oidc: ["books:read"] }]);
    });
  });

  it("documents paths below a basePath once, in the servers", () => {
    const doc = createOpenApiDocument({
      services: [LibraryService],
      info: { title: "Library", version: "1" },
      basePath: "/v1/",
      servers: [{ url: "https://api.example.com/" }],
    });
    expect(doc.servers).toEqual([{ url: "https://api.example.com/v1" }]);
    expect(Object.keys(doc.paths).every((path) => !path.startsWith("/v1/"))).toBe(true);
    expect(Object.keys(doc.paths)).toEqual(Object.keys(document.paths).map((path) => path.slice(3)));
    expect(() =>
      createOpenApiDocument({
        services: [LibraryService],
        info: { title: "Library", version: "1" },
        basePath: "/v2",
      }),
    ).toThrow(/does not start with the basePath \/v2/);
  });

  it("declares request headers, request examples, and the fields responses always set", () => {
    const doc = createOpenApiDocument({
      services: [LibraryService],
      info: { title: "Library", version: "1" },
      requestHeaders: (method) =>
        method.name === "CreateBook"
          ? {
              "Idempotency-Key": {
                description: "Retries are safe.",
                required: true,
                schema: { type: "string" },
              },
            }
          : undefined,
      requestExample: (method) => (method.name === "CreateBook" ? { title: "Dune" } : undefined),
      alwaysSetInResponses: (field) => field.name === "published_at",
    });
    const create = Object.values(doc.paths)
      .map((item) => item.post)
      .find((op) => op?.operationId === "LibraryService_CreateBook");
    expect(create?.parameters).toContainEqual({
      name: "Idempotency-Key",
      in: "header",
      description: "Retries are safe.",
      required: true,
      schema: { type: "string" },
    });
    expect(create?.requestBody?.content["application/json"]?.example).toEqual({ title: "Dune" });
    const book = schemaNamed("Book", doc);
    expect(book.properties?.publishedAt).toMatchObject({ type: "string", format: "date-time" });
    expect(book.properties?.sequel).toEqual({
      anyOf: [{ $ref: "#/components/schemas/Book" }, { type: "null" }],
    });
    // Error responses carry the request id the transcoder sends.
    expect((create?.responses["500"] as ResponseObject | undefined)?.headers?.["X-Request-Id"]).toMatchObject(
      {
        required: true,
      },
    );
  });

  it("describes a replaced error body: its schema, media type and examples", () => {
    const doc = createOpenApiDocument({
      services: [LibraryService],
      info: { title: "Library", version: "1" },
      errorBody: {
        schemaName: "Problem",
        contentType: "application/problem+json",
        schema: { type: "object", required: ["title", "status"], properties: { title: { type: "string" } } },
        example: (error, status) => ({ title: error.code, status, detail: error.condition }),
      },
    });
    expect(doc.components.schemas.ErrorEnvelope).toBeUndefined();
    expect(doc.components.schemas.Problem).toMatchObject({ required: ["title", "status"] });
    const get = Object.values(doc.paths)
      .map((item) => item.get)
      .find((op) => op?.operationId === "LibraryService_GetBook");
    const internal = get?.responses["500"] as ResponseObject | undefined;
    expect(internal?.content).toEqual({
      "application/problem+json": {
        schema: { $ref: "#/components/schemas/Problem" },
        examples: {
          internal: {
            summary: "internal",
            value: { title: "internal", status: 500, detail: expect.stringContaining("unexpected") },
          },
        },
      },
    });
  });

  it("documents a google.api.HttpBody as raw bytes of any media type, both ways", () => {
    const doc = createOpenApiDocument({ services: [CoverService], info: { title: "Covers", version: "1" } });
    const get = doc.paths["/v1/{name}/cover"]?.get;
    expect((get?.responses["200"] as ResponseObject | undefined)?.content).toEqual({
      "*/*": { schema: { type: "string", format: "binary" } },
    });
    const put = doc.paths["/v1/covers"]?.put;
    expect(put?.requestBody).toMatchObject({
      required: true,
      content: { "*/*": { schema: { type: "string", format: "binary" } } },
    });
    // Only the headers of compression: no query parameter, the body is not a message.
    expect(put?.parameters?.map((p) => p.name)).toEqual(["Accept-Encoding", "Content-Encoding"]);
    expect(doc.components.schemas.HttpBody).toBeUndefined();
    // Any media type is taken: only a compressed body is refused with 415, and no JSON is parsed.
    const unsupported = (put?.responses["415"] as ResponseObject | undefined)?.description;
    expect(unsupported).toContain("`Content-Encoding`");
    expect(unsupported).not.toContain("application/json");
    expect((put?.responses["400"] as ResponseObject | undefined)?.description).not.toContain("JSON");
  });

  it("documents a server stream as NDJSON or Server-Sent Events, ending with the error body on a failure", () => {
    const doc = createOpenApiDocument({ services: [CoverService], info: { title: "Covers", version: "1" } });
    const watch = (doc.paths["/v1/{name}:watch"]?.get?.responses["200"] as ResponseObject | undefined)
      ?.content;
    expect(Object.keys(watch ?? {})).toEqual(["application/x-ndjson", "text/event-stream"]);
    expect(watch?.["application/x-ndjson"]?.schema.anyOf).toEqual([
      { type: "object", required: ["result"], properties: { result: { $ref: "#/components/schemas/Book" } } },
      { $ref: "#/components/schemas/ErrorEnvelope" },
    ]);
    const download = doc.paths["/v1/{name}/cover:download"]?.get?.responses["200"] as
      | ResponseObject
      | undefined;
    expect(download?.content).toEqual({ "*/*": { schema: { type: "string", format: "binary" } } });
    expect(download?.description).toContain("cut off");
  });
});
