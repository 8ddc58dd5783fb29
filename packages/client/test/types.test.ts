// What the client's types promise, checked by the compiler (`tsc -p packages/client`, and vitest
// for the runtime half): methods appear typed from the generated descriptors, with no list of them
// kept in the client.
import type { GenService } from "@bufbuild/protobuf/codegenv2";
import {
  type CreateFolderResponse,
  type Folder,
  FolderService,
  type ListProjectsRequestSchema,
  type ListProjectsResponse,
  type ListProjectsResponseSchema,
  type Project,
  type ProjectService,
} from "@folio/proto";
import { describe, expectTypeOf, it } from "vitest";
import {
  createFolioClient,
  type FolioClient,
  type FolioService,
  type PageItem,
  type ProjectPage,
  type ServiceClient,
} from "../src/index.js";

/** A service as protoc-gen-es writes it, standing for one added to the proto after this test. */
type LaterService = GenService<{
  searchProjects: {
    methodKind: "unary";
    input: typeof ListProjectsRequestSchema;
    output: typeof ListProjectsResponseSchema;
  };
  watchProjects: {
    methodKind: "server_streaming";
    input: typeof ListProjectsRequestSchema;
    output: typeof ListProjectsResponseSchema;
  };
}>;

declare const later: LaterService;

describe("the client's types", () => {
  it("offer Folio's methods, requests as their init shape and responses as the output message", () => {
    const client = createFolioClient({ baseUrl: "http://localhost" });
    expectTypeOf(client).toEqualTypeOf<FolioClient>();
    expectTypeOf(client.listProjects)
      .parameter(0)
      .toEqualTypeOf<Parameters<ServiceClient<typeof ProjectService>["listProjects"]>[0]>();
    expectTypeOf(client.listProjects).returns.resolves.toEqualTypeOf<ListProjectsResponse>();
    expectTypeOf(client.listProjects).toBeCallableWith({ city: "Lyon", pageSize: 10 }, { timeoutMs: 1_000 });
    expectTypeOf(client.listProjects).toBeCallableWith();
    // @ts-expect-error: no such field
    expectTypeOf(client.listProjects).toBeCallableWith({ town: "Lyon" });
    // @ts-expect-error: a page size is a number
    expectTypeOf(client.listProjects).toBeCallableWith({ pageSize: "10" });
  });

  it("keep createFolder, listProjects and projects in their earlier shapes", () => {
    const client = createFolioClient({ baseUrl: "http://localhost" });
    expectTypeOf(client.createFolder).toBeCallableWith({
      name: "A",
      parentId: "p",
      color: "#abc",
      requestId: "k",
    });
    expectTypeOf(client.createFolder).returns.resolves.toEqualTypeOf<Folder>();
    expectTypeOf(client.listProjects).returns.resolves.toExtend<ProjectPage>();
    expectTypeOf(client.projects).returns.toEqualTypeOf<AsyncGenerator<Project, void, undefined>>();
    const created = () => client.call(FolderService.method.createFolder, { name: "A" });
    expectTypeOf(created).returns.resolves.toEqualTypeOf<CreateFolderResponse>();
  });

  it("give an item iterator to each paged method, and to no other", () => {
    const client = createFolioClient({ baseUrl: "http://localhost" });
    expectTypeOf(client.paged.listProjects).returns.toEqualTypeOf<AsyncGenerator<Project, void, undefined>>();
    expectTypeOf(client.paged).not.toHaveProperty("createFolder");
    expectTypeOf<
      PageItem<typeof ListProjectsRequestSchema, typeof ListProjectsResponseSchema>
    >().toEqualTypeOf<Project>();
  });

  it("make a method of a service added to the proto appear, typed, with no edit of the client", () => {
    expectTypeOf<typeof FolderService>().toExtend<FolioService>();
    expectTypeOf<typeof ProjectService>().toExtend<FolioService>();
    // Never run: a LaterService exists only as a type.
    const make = () => createFolioClient({ baseUrl: "http://localhost", services: [FolderService, later] });
    type Client = ReturnType<typeof make>;
    expectTypeOf<Client>().toExtend<ServiceClient<typeof FolderService | LaterService>>();
    expectTypeOf<Client["searchProjects"]>().returns.resolves.toEqualTypeOf<ListProjectsResponse>();
    expectTypeOf<Client["paged"]["searchProjects"]>().returns.toEqualTypeOf<
      AsyncGenerator<Project, void, undefined>
    >();
    expectTypeOf<Client["createFolder"]>().returns.resolves.toEqualTypeOf<CreateFolderResponse>();
    // Streaming methods are not offered: only unary ones are.
    expectTypeOf<Client>().not.toHaveProperty("watchProjects");
    // A client of the services it names has none of Folio's shorthands.
    expectTypeOf<Client>().not.toHaveProperty("projects");
  });
});
