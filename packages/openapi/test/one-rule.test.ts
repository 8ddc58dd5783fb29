/**
 * One owner of each REST rule: a change of one `google.api.http` rule in the proto changes what the
 * transcoder serves and what the document says alike, with nothing else changed.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { clone, create, type DescService, getExtension, setExtension } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { createConnectRouter } from "@connectrpc/connect";
import { createHttpTranscoder } from "@folio/http-transcoder";
import { http as httpRule } from "@folio/http-transcoder/google/api/annotations_pb.js";
import { HttpRuleSchema } from "@folio/http-transcoder/google/api/http_pb.js";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenApiDocument, type OperationObject, type ParameterObject } from "../src/index.js";
import { libraryFile, libraryRegistryOf } from "./library.js";

/** The library API with ListBooks served at `pattern` instead of `/v1/{parent=shelves/*}/books`. */
function libraryWithListBooksAt(pattern: string): DescService {
  const file = clone(FileDescriptorProtoSchema, libraryFile);
  const listBooks = file.service[0]?.method.find((method) => method.name === "ListBooks");
  if (listBooks?.options === undefined) throw new Error("no ListBooks in the fixture");
  const rule = getExtension(listBooks.options, httpRule);
  setExtension(
    listBooks.options,
    httpRule,
    create(HttpRuleSchema, { ...rule, pattern: { case: "get", value: pattern } }),
  );
  return libraryRegistryOf(file).getService("library.v1.LibraryService") as DescService;
}

/** Serves the service over REST; the page sizes ListBooks received are recorded. */
async function serve(service: DescService) {
  const pageSizes: number[] = [];
  const router = createConnectRouter();
  router.service(service, {
    listBooks: (req: { pageSize: number }) => {
      pageSizes.push(req.pageSize);
      return { books: [], nextPageToken: "" };
    },
  } as never);
  const server = http.createServer(createHttpTranscoder({ router, services: [service] }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pageSizes };
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** The ListBooks operation of the document of the service, and its path. */
function listBooksOperation(service: DescService): { path: string; operation: OperationObject } {
  const document = createOpenApiDocument({ services: [service], info: { title: "Library", version: "1" } });
  for (const [path, item] of Object.entries(document.paths)) {
    if (item.get?.operationId === "LibraryService_ListBooks") return { path, operation: item.get };
  }
  throw new Error("ListBooks is not in the document");
}

/** A request of the operation with `values` put where its parameters say: path or query. */
function requestFromDocument(
  path: string,
  operation: OperationObject,
  values: Record<string, string>,
): string {
  const query = new URLSearchParams();
  let target = path;
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    const value = values[parameter.name];
    if (value === undefined) continue;
    if (parameter.in === "path") target = target.replace(`{${parameter.name}}`, value);
    else if (parameter.in === "query") query.set(parameter.name, value);
  }
  const search = query.toString();
  return search === "" ? target : `${target}?${search}`;
}

describe("a field the rule moves from the query string to the path", () => {
  const values = { parent: "shelves/1", pageSize: "5", page_size: "5" };

  it("is a query parameter in the document and the transcoder while the rule leaves it unbound", async () => {
    const service = libraryWithListBooksAt("/v1/{parent=shelves/*}/books");
    const { path, operation } = listBooksOperation(service);
    const parameters = (operation.parameters ?? []) as ParameterObject[];
    expect(parameters.find((p) => p.name === "pageSize")?.in).toBe("query");
    expect(parameters.some((p) => p.name === "page_size")).toBe(false);

    const { baseUrl, pageSizes } = await serve(service);
    const target = requestFromDocument(path, operation, values);
    expect(target).toBe("/v1/shelves/1/books?pageSize=5");
    expect((await fetch(baseUrl + target)).status).toBe(200);
    expect(pageSizes).toEqual([5]);
  });

  it("is a path parameter of both, and refused in the query string, once the rule binds it", async () => {
    const service = libraryWithListBooksAt("/v1/{parent=shelves/*}/books/pages/{page_size}");
    const { path, operation } = listBooksOperation(service);
    const parameters = (operation.parameters ?? []) as ParameterObject[];
    expect(parameters.find((p) => p.name === "page_size")).toMatchObject({ in: "path", required: true });
    expect(parameters.some((p) => p.name === "pageSize")).toBe(false);

    const { baseUrl, pageSizes } = await serve(service);
    const target = requestFromDocument(path, operation, values);
    expect(target).toBe("/v1/shelves/1/books/pages/5");
    expect((await fetch(baseUrl + target)).status).toBe(200);
    expect(pageSizes).toEqual([5]);

    // What the document no longer offers, the transcoder no longer takes.
    const refused = await fetch(`${baseUrl}/v1/shelves/1/books/pages/5?pageSize=6`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { message: "pageSize: not allowed: the field is bound by the path" },
    });
    // The old address is CreateBook's alone now (POST).
    expect((await fetch(`${baseUrl}/v1/shelves/1/books?pageSize=5`)).status).toBe(405);
    expect(pageSizes).toEqual([5]);
  });
});
