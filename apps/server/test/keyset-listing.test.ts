// A listing's page tokens across a rolling upgrade: ListProjects' tokens are bound as they were
// before listings were generic, so an instance of either release reads the other's; listings added
// since name themselves in the binding, so no token crosses from one listing to another.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import {
  FolderService,
  ListFoldersRequestSchema,
  ListProjectsRequestSchema,
  ProjectService,
} from "@folio/proto";
import { describe, expect, it } from "vitest";
import { keysetListing } from "../src/services/keyset-listing.js";
import { createPageTokens } from "../src/services/page-token.js";

const tokens = createPageTokens(["secret-a-0123456789-0123456789-0123456789"]);
const byName = { name: "string", id: "string" } as const;
const projects = keysetListing(ProjectService.method.listProjects, byName, tokens, { unnamedBinding: true });
const folders = keysetListing(FolderService.method.listFolders, byName, tokens);
const org = randomUUID();
const last = { name: "Harbour Office Refit", id: randomUUID() };

describe("ListProjects' page tokens", () => {
  it("of the release before generic listings (bound to the org and the filters) open the next page", () => {
    const earlier = tokens.encode([last.name, last.id], JSON.stringify([org, "", "Hamburg", "", ""]));
    const request = create(ListProjectsRequestSchema, { pageToken: earlier, city: "Hamburg" });
    expect(projects.pageOf(request, org).after).toEqual(last);
  });

  it("are sealed so that the release before reads them", () => {
    const first = projects.pageOf(create(ListProjectsRequestSchema, { city: "Hamburg", pageSize: 1 }), org);
    const { nextPageToken } = first.answer([last, { name: "Zeppelin Yard", id: randomUUID() }]);
    expect(tokens.decode(nextPageToken, JSON.stringify([org, "", "Hamburg", "", ""]))).toEqual([
      last.name,
      last.id,
    ]);
  });
});

describe("a page token of one listing", () => {
  it("is refused by the other, both ways", () => {
    const projectPage = projects.pageOf(create(ListProjectsRequestSchema, { pageSize: 1 }), org);
    const projectToken = projectPage.answer([last, last]).nextPageToken;
    const folderPage = folders.pageOf(create(ListFoldersRequestSchema, { pageSize: 1 }), org);
    const folderToken = folderPage.answer([last, last]).nextPageToken;
    expect(() => folders.pageOf(create(ListFoldersRequestSchema, { pageToken: projectToken }), org)).toThrow(
      /pageToken/,
    );
    expect(() => projects.pageOf(create(ListProjectsRequestSchema, { pageToken: folderToken }), org)).toThrow(
      /pageToken/,
    );
    // Each is read by its own listing.
    expect(folders.pageOf(create(ListFoldersRequestSchema, { pageToken: folderToken }), org).after).toEqual(
      last,
    );
    expect(
      projects.pageOf(create(ListProjectsRequestSchema, { pageToken: projectToken }), org).after,
    ).toEqual(last);
  });
});
