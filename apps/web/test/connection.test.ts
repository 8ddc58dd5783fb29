import { describe, expect, it } from "vitest";
import { apiBaseUrl, loadConnection, STORAGE_KEY, takeTokenFromFragment } from "../src/connection.js";
import { summariseToken } from "../src/token.js";

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  };
}

function addressBar(hash: string) {
  const replaced: string[] = [];
  return {
    location: { hash, pathname: "/folders/new", search: "?a=1" },
    history: {
      replaceState: (_data: unknown, _unused: string, url?: string | URL | null) =>
        void replaced.push(String(url)),
    },
    replaced,
  };
}

describe("a token in the address's fragment", () => {
  it("moves to session storage and leaves the address bar", () => {
    const storage = memoryStorage({
      [STORAGE_KEY]: JSON.stringify({ apiUrl: "", protocol: "grpc-web", token: "old" }),
    });
    const bar = addressBar("#token=eyJ.abc.def");
    expect(takeTokenFromFragment(bar.location, bar.history, storage)).toBe(true);
    expect(loadConnection(storage)).toEqual({ apiUrl: "", protocol: "grpc-web", token: "eyJ.abc.def" });
    expect(bar.replaced).toEqual(["/folders/new?a=1"]);
  });

  it("changes nothing when the fragment has no token", () => {
    const storage = memoryStorage();
    const bar = addressBar("#main");
    expect(takeTokenFromFragment(bar.location, bar.history, storage)).toBe(false);
    expect(storage.items.size).toBe(0);
    expect(bar.replaced).toEqual([]);
  });
});

describe("connection settings", () => {
  it("default to Connect on the page's own origin, and survive a damaged entry", () => {
    expect(loadConnection(memoryStorage({ [STORAGE_KEY]: "{not json" }))).toEqual({
      apiUrl: "",
      protocol: "connect",
      token: "",
    });
    expect(apiBaseUrl({ apiUrl: "", protocol: "connect", token: "" }, "http://127.0.0.1:8080")).toBe(
      "http://127.0.0.1:8080",
    );
    expect(apiBaseUrl({ apiUrl: " http://api.test:8080/ ", protocol: "connect", token: "" }, "x")).toBe(
      "http://api.test:8080",
    );
  });
});

describe("summariseToken", () => {
  it("reads the org, user, scopes and expiry of a JWT for display", () => {
    const payload = Buffer.from(
      JSON.stringify({ sub: "u-1", org_id: "o-1", scope: "project:read files:upload", exp: 1_800_000_000 }),
    ).toString("base64url");
    expect(summariseToken(`eyJhbGciOiJFUzI1NiJ9.${payload}.sig`)).toEqual({
      userId: "u-1",
      orgId: "o-1",
      scopes: ["project:read", "files:upload"],
      expiresAt: new Date(1_800_000_000_000),
    });
    expect(summariseToken("not a token")).toBeUndefined();
  });
});
