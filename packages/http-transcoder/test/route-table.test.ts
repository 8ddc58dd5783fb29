import { describe, expect, it } from "vitest";
import { collectHttpRoutes } from "../src/index.js";
import { createRouteTable } from "../src/route-table.js";
import { LibraryService } from "./gen/transcodertest/v1/library_pb.js";

const routes = collectHttpRoutes([LibraryService]).map((route) => ({ route }));
const isDeep = (entry: (typeof routes)[number]) => entry.route.pattern.includes("**");

describe("the route table", () => {
  // Without a `**`, a path of more segments than the longest template is refused unsplit.
  const shallow = createRouteTable(routes.filter((entry) => !isDeep(entry)));
  const deep = createRouteTable(routes);

  it("finds a route as deep as the longest template, and refuses one segment more", () => {
    const found = shallow.lookup("PUT", "/v1/shelves/s1/books/b1/tags");
    expect(found).toMatchObject({ kind: "found", segments: ["v1", "shelves", "s1", "books", "b1", "tags"] });
    expect(shallow.lookup("PUT", "/v1/shelves/s1/books/b1/tags/x")).toEqual({ kind: "not-found" });
    expect(shallow.lookup("GET", "/v1/shelves/s1/books/b1/")).toEqual({ kind: "not-found" });
  });

  it("refuses a path of thousands of segments without a `**`, and matches it with one", () => {
    const path = `/v1/files/${"%61/".repeat(20_000)}last`;
    expect(shallow.lookup("GET", path)).toEqual({ kind: "not-found" });
    const found = deep.lookup("GET", path);
    expect(found.kind).toBe("found");
    expect(found.kind === "found" && found.segments.length).toBe(20_003);
  });

  it("still tells a known path's methods apart from an unknown path", () => {
    expect(shallow.lookup("POST", "/v1/shelves/s1/books/b1")).toMatchObject({ kind: "method-not-allowed" });
    expect(shallow.lookup("GET", "/")).toEqual({ kind: "not-found" });
  });
});
