import { CreateFolderRequestSchema, ListProjectsRequestSchema } from "@folio/proto";
import { describe, expect, it } from "vitest";
import { checkRequest } from "../src/form-checks.js";

describe("the forms' checks of the proto's rules", () => {
  it("let a valid request through", () => {
    expect(checkRequest(CreateFolderRequestSchema, { name: "Invoices", color: "#1e90ff" })).toBeUndefined();
    expect(checkRequest(ListProjectsRequestSchema, { pageSize: 25, city: "Lyon" })).toBeUndefined();
  });

  it("tell each broken rule next to its field, in the server's words", () => {
    const report = checkRequest(CreateFolderRequestSchema, {
      name: "a/b",
      color: "red",
      parentId: "folder-1",
      requestId: "",
    });
    expect(report?.fields).toEqual({
      // A CEL rule's message, and each field's (folio.v1.rule_description).
      name: 'Name must not contain "/" or "\\".',
      color: "Colour must be #rgb or #rrggbb.",
      parentId: "Parent folder must be a UUID.",
      requestId: "Request id must be 1 to 255 visible ASCII characters.",
    });
    expect(report?.summary).toBe("4 fields need a change.");
  });

  it("tell every CEL rule a name breaks, once each", () => {
    expect(checkRequest(CreateFolderRequestSchema, { name: "   " })?.fields).toEqual({
      name: "Name must not be empty.",
    });
    expect(checkRequest(CreateFolderRequestSchema, { name: ".." })?.fields).toEqual({
      name: 'Name must not be "." or "..".',
    });
  });

  it("check the list's filters", () => {
    expect(checkRequest(ListProjectsRequestSchema, { city: "Ly\u0000on" })?.fields).toEqual({
      city: "City must not contain the NUL character (U+0000).",
    });
  });
});
