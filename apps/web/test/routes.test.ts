import { describe, expect, it } from "vitest";
import { folderIdOf, folderPath, ROUTES, routeOf } from "../src/routes.js";

const ID = "3f1c2a7e-5b7d-4c1e-9a0b-2d4e6f8a0b1c";

describe("the app's routes", () => {
  it("shows a folder's page below /folders, and the new-folder form at /folders/new", () => {
    expect(routeOf(folderPath(ID))).toBe("folders");
    expect(folderIdOf(folderPath(ID))).toBe(ID);
    expect(folderIdOf(`/folders/${ID}/`)).toBe(ID);
    expect(routeOf("/folders")).toBe("folders");
    expect(folderIdOf("/folders")).toBeUndefined();
    expect(routeOf("/folders/new")).toBe("newFolder");
    expect(folderIdOf("/folders/new")).toBeUndefined();
  });

  it("knows no path deeper than a folder's page, nor any other", () => {
    expect(routeOf(`/folders/${ID}/more`)).toBeUndefined();
    expect(routeOf("/nope")).toBeUndefined();
    expect(routeOf("/connection/")).toBe("connection");
  });

  it("lists every path the server must answer with the page, a folder's page below /folders", () => {
    const paths: string[] = Object.values(ROUTES);
    expect(paths).toContain("/folders");
    expect(paths.some((path) => folderPath(ID).startsWith(`${path}/`))).toBe(true);
  });
});
