import { FolderService, ProjectService, requiredScope } from "@folio/proto";
import { describe, expect, it } from "vitest";
import { API_SCOPES } from "../src/scopes.js";

describe("the API's scopes", () => {
  it("names every scope a method requires, once, with what it allows", () => {
    const required = new Set(
      [...FolderService.methods, ...ProjectService.methods].map((method) => requiredScope(method)),
    );
    const names = API_SCOPES.map((scope) => scope.name);
    expect(new Set(names).size).toBe(names.length);
    for (const scope of required) expect(names).toContain(scope);
    for (const scope of API_SCOPES) expect(scope.description).not.toBe("");
  });
});
