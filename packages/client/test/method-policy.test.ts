// Which calls the client sends again, decided by each method's proto: its idempotency_level, else
// its AIP-155 request_id; seen by a fetch that stands in for a server answering 503 once.
import type { DescMethod } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { FolderService, ProjectService } from "@folio/proto";
import { describe, expect, it } from "vitest";
import { createFolioClient, FolioError, type Protocol } from "../src/index.js";
import { retryRule } from "../src/method-policy.js";
import { LibraryService } from "./library-service.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The library over `protocol`, from a server that answers `unavailable` (Retry-After: 0) to each first attempt. */
function flakyLibrary(protocol: Protocol) {
  const bodies: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    bodies.push(protocol === "rest" ? url.search : await request.text());
    const json = { "content-type": "application/json" };
    if (bodies.length === 1) {
      const error =
        protocol === "rest"
          ? { error: { code: "unavailable", message: "busy" } }
          : { code: "unavailable", message: "busy" };
      return Response.json(error, { status: 503, headers: { ...json, "retry-after": "0" } });
    }
    return Response.json({}, { headers: json });
  };
  const client = createFolioClient({
    baseUrl: "http://library.test",
    protocol,
    services: [LibraryService],
    fetch,
  });
  return { client, bodies };
}

function method(name: string): DescMethod {
  return LibraryService.methods.find((m) => m.name === name)!;
}

describe.each(["rest", "connect"] as const)("retries over %s", (protocol) => {
  it.each([
    ["NO_SIDE_EFFECTS", "SearchBooks", { shelf: "s" }],
    ["IDEMPOTENT", "DeleteBook", { name: "shelves/1/books/1" }],
  ])("retries a method declared %s", async (_, name, request) => {
    const { client, bodies } = flakyLibrary(protocol);
    await client.call(method(name), request);
    expect(bodies.length).toBe(2);
  });

  it.each([
    ["with no idempotency level and no request_id", "CreateBook", { shelf: "s" }],
    ["bound to GET but declaring no idempotency level", "GetBookTitle", { name: "shelves/1/books/1" }],
  ])("does not retry a method %s", async (_, name, request) => {
    const { client, bodies } = flakyLibrary(protocol);
    const error = await client.call(method(name), request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FolioError);
    expect((error as FolioError).code).toBe(Code.Unavailable);
    expect(bodies.length).toBe(1);
  });

  it("retries a method with a request_id, the same key made once for every attempt of a call", async () => {
    const { client, bodies } = flakyLibrary(protocol);
    await client.call(method("UpdateBook"), { book: { name: "shelves/1/books/1" } });
    const keys = bodies.map((body) => (/requestId(?:=|":")([0-9a-f-]+)/.exec(body) ?? [])[1]);
    expect(keys.length).toBe(2);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toBe(keys[0]);

    const again = flakyLibrary(protocol);
    await again.client.call(method("UpdateBook"), { book: { name: "shelves/1/books/1" } });
    expect(again.bodies[0]).not.toContain(keys[0]);
  });

  it("keeps the request_id the caller set", async () => {
    const { client, bodies } = flakyLibrary(protocol);
    await client.call(method("UpdateBook"), { book: { name: "shelves/1/books/1" }, requestId: "mine-1" });
    expect(bodies.length).toBe(2);
    for (const body of bodies) expect(body).toContain("mine-1");
  });
});

describe("Folio's methods", () => {
  it("are retried as their protos declare", () => {
    expect(retryRule(FolderService.method.createFolder)).toBe("with-request-id");
    expect(retryRule(ProjectService.method.listProjects)).toBe("always");
  });
});
