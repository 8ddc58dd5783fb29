import { describe, expect, it } from "vitest";
import { apiBaseUrl, loadConnection, STORAGE_KEY, takeTokenFromFragment } from "../src/connection.js";
import { summariseToken } from "../src/token.js";
import { tokenSwitchQuestion } from "../src/token-link.js";

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
  const never = () => {
    throw new Error("asked, with no token to replace");
  };

  it("moves to session storage of a tab without a token, and leaves the address bar", () => {
    const storage = memoryStorage({
      [STORAGE_KEY]: JSON.stringify({ apiUrl: "", protocol: "grpc-web", token: "" }),
    });
    const bar = addressBar("#token=eyJ.abc.def");
    expect(takeTokenFromFragment(bar.location, bar.history, storage, never)).toBe(true);
    expect(loadConnection(storage)).toEqual({ apiUrl: "", protocol: "grpc-web", token: "eyJ.abc.def" });
    expect(bar.replaced).toEqual(["/folders/new?a=1"]);
  });

  it("replaces the tab's token only when the user agrees, and leaves the address bar either way", () => {
    const stored = JSON.stringify({ apiUrl: "", protocol: "connect", token: "old" });
    const asked: [string, string][] = [];
    const refusing = memoryStorage({ [STORAGE_KEY]: stored });
    const bar = addressBar("#token=new");
    const refuse = (current: string, offered: string) => {
      asked.push([current, offered]);
      return false;
    };
    expect(takeTokenFromFragment(bar.location, bar.history, refusing, refuse)).toBe(false);
    expect(loadConnection(refusing).token).toBe("old");
    expect(asked).toEqual([["old", "new"]]);
    expect(bar.replaced).toEqual(["/folders/new?a=1"]);

    const agreeing = memoryStorage({ [STORAGE_KEY]: stored });
    expect(takeTokenFromFragment(bar.location, bar.history, agreeing, () => true)).toBe(true);
    expect(loadConnection(agreeing).token).toBe("new");
  });

  it("does not ask when the link's token is the tab's own", () => {
    const storage = memoryStorage({
      [STORAGE_KEY]: JSON.stringify({ apiUrl: "", protocol: "connect", token: "same" }),
    });
    const bar = addressBar("#token=same");
    expect(takeTokenFromFragment(bar.location, bar.history, storage, never)).toBe(false);
    expect(bar.replaced).toEqual(["/folders/new?a=1"]);
  });

  it("changes nothing when the fragment has no token", () => {
    const storage = memoryStorage();
    const bar = addressBar("#main");
    expect(takeTokenFromFragment(bar.location, bar.history, storage, never)).toBe(false);
    expect(storage.items.size).toBe(0);
    expect(bar.replaced).toEqual([]);
  });
});

describe("the question before a link replaces the tab's token", () => {
  it("names the organisation of each token", () => {
    const jwt = (claims: object) =>
      `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;
    const question = tokenSwitchQuestion(jwt({ org_id: "org-mine" }), jwt({ org_id: "org-theirs" }));
    expect(question).toContain("This link signs this tab in to organisation org-theirs.");
    expect(question).toContain("The tab is signed in to organisation org-mine now.");
    expect(tokenSwitchQuestion("opaque", jwt({ org_id: "org-theirs" }))).toContain(
      "signed in to no organisation the app can read",
    );
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
