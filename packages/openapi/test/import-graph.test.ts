import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ImportEdge, walkImportGraph } from "./import-graph.js";

// The generator stands on its own: what it imports, itself or through the packages it imports,
// holds no part of the REST runtime (the transcoder's serving, the RPC protocols, Connect's Node
// adapter or protocol internals) and nothing that serves or writes files. Of Folio's packages it
// imports the transcoder's rules and google/api types only, so that installing it installs no other.

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const workspace = join(packageDir, "..", "..");
const graph = walkImportGraph(packageDir);

/** Where an import is, for a failure: the chain of files from the entry point, and the specifier. */
function describeEdge(edge: ImportEdge): string {
  return `${edge.chain.map((file) => relative(workspace, file)).join(" -> ")} imports "${edge.specifier}"`;
}

/** The imports of the graph whose specifier matches. */
function importsOf(matches: (specifier: string) => boolean): string[] {
  return [...new Set(graph.edges.filter((edge) => matches(edge.specifier)).map(describeEdge))];
}

describe("the import graph of @folio/openapi", () => {
  it("reaches the transcoder's REST rules, and through them only", () => {
    const files = [...graph.files].map((file) => relative(workspace, file));
    expect(files).toContain("packages/http-transcoder/src/rules.ts");
    expect(files).toContain("packages/http-transcoder/src/http-route.ts");
    expect(importsOf((specifier) => specifier === "@folio/http-transcoder")).toEqual([]);
  });

  it("imports no package of Folio's but the transcoder's rules and its google/api types", () => {
    expect(
      importsOf(
        (specifier) =>
          specifier.startsWith("@folio/") &&
          specifier !== "@folio/http-transcoder/rules" &&
          !specifier.startsWith("@folio/http-transcoder/google/api/"),
      ),
    ).toEqual([]);
  });

  it("reaches neither the RPC protocols nor connect-node nor Connect's protocol internals", () => {
    expect(
      importsOf(
        (specifier) =>
          specifier === "@folio/rpc-protocols" ||
          specifier.startsWith("@folio/rpc-protocols/") ||
          specifier === "@connectrpc/connect-node" ||
          specifier.startsWith("@connectrpc/connect/protocol"),
      ),
    ).toEqual([]);
  });

  it("reads the rules, which import only descriptors, google/api types and Node's codings", () => {
    const allowed = (edge: ImportEdge) =>
      edge.specifier.startsWith(".") ||
      /^@bufbuild\/protobuf(\/|$)/.test(edge.specifier) ||
      edge.specifier === "node:zlib" ||
      // Connect's Code, as the type of an error rule's code and of the code names: erased from the
      // built module.
      (edge.specifier === "@connectrpc/connect" && edge.typeOnly);
    const rules = graph.edges.filter((edge) => edge.from.includes("/packages/http-transcoder/"));
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.filter((edge) => !allowed(edge)).map(describeEdge)).toEqual([]);
    // The transcoder's own modules are relative imports: of its generated code, google/api only.
    const generated = [...graph.files].filter((file) => file.includes("/packages/http-transcoder/src/gen/"));
    expect(generated.length).toBeGreaterThan(0);
    expect(
      generated
        .filter((file) => !file.includes("/packages/http-transcoder/src/gen/google/api/"))
        .map((file) => relative(workspace, file)),
    ).toEqual([]);
  });

  it("serves nothing and writes no files", () => {
    const serving = new Set([
      "sirv",
      "@scalar/api-reference",
      "node:http",
      "node:http2",
      "node:net",
      "node:os",
    ]);
    expect(importsOf((specifier) => serving.has(specifier) || /^node:fs(\/|$)/.test(specifier))).toEqual([]);
  });
});
