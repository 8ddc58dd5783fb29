import { createConnectRouter } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { collectHttpRoutes, createHttpTranscoder } from "../src/index.js";
import {
  AmbiguousService,
  BadTemplateService,
  BidiStreamingService,
  ClientStreamingService,
  NestedBindingsService,
  RepeatedPathFieldService,
  ScalarParentPathFieldService,
  UnknownBodyFieldService,
  UnknownPathFieldService,
  UnknownResponseBodyFieldService,
} from "./gen/transcodertest/v1/invalid_pb.js";
import { LibraryService } from "./gen/transcodertest/v1/library_pb.js";

describe("collectHttpRoutes", () => {
  const routes = collectHttpRoutes([LibraryService]);

  it("reads every rule and additional binding, in declaration order", () => {
    expect(routes.map((r) => `${r.method.name} ${r.httpMethod} ${r.pattern} #${r.binding}`)).toEqual([
      "GetShelf GET /v1/{name=shelves/*} #0",
      "GetDefaultShelf GET /v1/shelves/default #0",
      "CreateShelf POST /v1/shelves #0",
      "UpdateShelf PATCH /v1/shelves/{shelf.id} #0",
      "ListBooks GET /v1/{parent=shelves/*}/books #0",
      "GetBook GET /v1/{name=shelves/*/books/*} #0",
      "GetBook GET /v1/{name=books/*} #1",
      "CreateBook POST /v1/{parent=shelves/*}/books #0",
      "UpdateBook PATCH /v1/{book.name=shelves/*/books/*} #0",
      "ReplaceBook PUT /v1/{name=shelves/*/books/*} #0",
      "DeleteBook DELETE /v1/{name=shelves/*/books/*} #0",
      "PublishBook POST /v1/{name=shelves/*/books/*}:publish #0",
      "SetBookTags PUT /v1/{name=shelves/*/books/*}/tags #0",
      "SearchBooks SEARCH /v1/{parent=shelves/*}/books #0",
      "GetFile GET /v1/files/{path=**} #0",
      "GetAuthor GET /v1/authors/{author} #0",
      "UploadCover PUT /v1/{name=shelves/*}/cover #0",
      "GetCover GET /v1/{name=shelves/*}/cover #0",
      "Echo POST /v1/echo #0",
      "WatchBooks GET /v1/{parent=shelves/*}/books:watch #0",
      "DownloadShelf GET /v1/{name=shelves/*}:download #0",
      "CheckBook HEAD /v1/{name=shelves/*/books/*} #0",
      "CheckBook HEAD /v1/{name=shelves/*/books/*}/exists #1",
    ]);
  });

  it("gives OpenAPI paths with field paths as parameter names", () => {
    expect(routes.map((r) => r.openApiPath)).toEqual([
      "/v1/{name}",
      "/v1/shelves/default",
      "/v1/shelves",
      "/v1/shelves/{shelf.id}",
      "/v1/{parent}/books",
      "/v1/{name}",
      "/v1/{name}",
      "/v1/{parent}/books",
      "/v1/{book.name}",
      "/v1/{name}",
      "/v1/{name}",
      "/v1/{name}:publish",
      "/v1/{name}/tags",
      "/v1/{parent}/books",
      "/v1/files/{path}",
      "/v1/authors/{author}",
      "/v1/{name}/cover",
      "/v1/{name}/cover",
      "/v1/echo",
      "/v1/{parent}/books:watch",
      "/v1/{name}:download",
      "/v1/{name}",
      "/v1/{name}/exists",
    ]);
  });

  it("resolves path variables, body and response body to fields", () => {
    const update = routes.find((r) => r.method.name === "UpdateBook");
    expect(update?.pathVariables.map((v) => v.fields.map((f) => f.name))).toEqual([["book", "name"]]);
    expect(update?.pathVariables[0]?.multiSegment).toBe(true);
    expect(update?.body).toBe("book");
    expect(update?.bodyField?.name).toBe("book");
    const createShelf = routes.find((r) => r.method.name === "CreateShelf");
    expect(createShelf?.responseBody).toBe("shelf");
    expect(createShelf?.responseBodyField?.parent.typeName).toBe("transcodertest.v1.CreateShelfResponse");
    const replace = routes.find((r) => r.method.name === "ReplaceBook");
    expect(replace?.body).toBe("*");
    expect(replace?.bodyField).toBeUndefined();
    const get = routes.find((r) => r.method.name === "GetShelf");
    expect(get?.body).toBeUndefined();
    expect(get?.responseBody).toBeUndefined();
  });

  it("leaves out methods without a rule", () => {
    expect(routes.some((r) => r.method.name === "Ping")).toBe(false);
  });

  it.each([
    [BadTemplateService, 'invalid path template "/v1/{name=**}/child": "**" must be the last segment'],
    [
      UnknownPathFieldService,
      'path variable "title": "title" is not a field of transcodertest.v1.InvalidRequest',
    ],
    [RepeatedPathFieldService, 'the path variable "tags" is a list field'],
    [
      ScalarParentPathFieldService,
      'path variable "name.first": "name" is not a singular message field, so it has no fields',
    ],
    [UnknownBodyFieldService, 'body "payload" is not a field of transcodertest.v1.InvalidRequest'],
    [
      UnknownResponseBodyFieldService,
      'response_body "payload" is not a field of transcodertest.v1.InvalidResponse',
    ],
    [NestedBindingsService, "an additional binding has additional_bindings itself"],
  ])("refuses %s at start-up", (service, reason) => {
    expect(() => collectHttpRoutes([service])).toThrow(
      `google.api.http rule of ${service.typeName}.${service.methods[0]?.name}: ${reason}`,
    );
  });
});

describe("createHttpTranscoder at start-up", () => {
  it("refuses two rules that match the same requests", () => {
    const router = createConnectRouter().service(AmbiguousService, {});
    expect(() => createHttpTranscoder({ router })).toThrow(
      "ambiguous google.api.http rules: GET /v1/{name=shelves/*} (transcodertest.v1.AmbiguousService.First) and GET /v1/shelves/{id} (transcodertest.v1.AmbiguousService.Second) match the same requests",
    );
  });

  it("refuses client-streaming and bidi-streaming methods at start-up", () => {
    for (const [service, kind] of [
      [ClientStreamingService, "client_streaming"],
      [BidiStreamingService, "bidi_streaming"],
    ] as const) {
      const router = createConnectRouter().service(service, {});
      const method = service.methods[0];
      expect(() => createHttpTranscoder({ router })).toThrow(
        `google.api.http rule of ${service.typeName}.${method?.name}: ${kind} methods cannot be served over REST, where a request is one message; only unary and server-streaming methods can`,
      );
    }
  });

  it("refuses a method without a handler", () => {
    expect(() => createHttpTranscoder({ router: createConnectRouter(), services: [LibraryService] })).toThrow(
      "google.api.http rule of transcodertest.v1.LibraryService.GetShelf: no handler for the method",
    );
  });

  it("takes the services of the router by default", () => {
    const router = createConnectRouter().service(LibraryService, {});
    expect(() => createHttpTranscoder({ router })).not.toThrow();
  });
});
