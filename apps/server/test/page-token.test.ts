// Page tokens travel in URLs (REST `Link` headers) and so into proxy logs: these tests hold that a
// token shows nothing of the listing, is refused when altered or used elsewhere, and is still read
// while PAGE_TOKEN_SECRET is rotated.
import { createHmac, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPageTokens } from "../src/services/page-token.js";

const A = "secret-a-0123456789-0123456789-0123456789";
const B = "secret-b-0123456789-0123456789-0123456789";
const name = "Harbour Office Refit";
const id = randomUUID();
// A listing by name, then id: the cursor holds the sort key's values of the page's last entry.
const cursor = [name, id];
const binding = JSON.stringify(["org-1", "", "Hamburg", "", ""]);

/** Every dot-separated part of a token, base64url-decoded, as text. */
const decodedParts = (token: string) =>
  token.split(".").map((part) => Buffer.from(part, "base64url").toString("latin1"));

describe("a page token", () => {
  it("shows neither the project's name nor its id, in clear or base64url-decoded", () => {
    const token = createPageTokens([A]).encode(cursor, binding);
    expect(token).toMatch(/^2\.[0-9A-Za-z_-]+$/);
    for (const text of [token, ...decodedParts(token)]) {
      for (const secret of [name, "Harbour", id, id.replaceAll("-", "")]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it("differs each time for the same page, so equal tokens do not reveal equal positions", () => {
    const tokens = createPageTokens([A]);
    expect(tokens.encode(cursor, binding)).not.toBe(tokens.encode(cursor, binding));
  });

  it("holds a sort key of any fields, numbers too", () => {
    const tokens = createPageTokens([A]);
    const byTime = [1767225600500, "Harbour", id];
    expect(tokens.decode(tokens.encode(byTime, binding), binding)).toEqual(byTime);
  });

  it("is read back within its binding, and refused for another org or another filter", () => {
    const tokens = createPageTokens([A]);
    const token = tokens.encode(cursor, binding);
    expect(tokens.decode(token, binding)).toEqual(cursor);
    expect(tokens.decode(token, JSON.stringify(["org-2", "", "Hamburg", "", ""]))).toBeUndefined();
    expect(tokens.decode(token, JSON.stringify(["org-1", "", "Bremen", "", ""]))).toBeUndefined();
    expect(tokens.decode(token, JSON.stringify(["org-1", "", "", "", ""]))).toBeUndefined();
  });

  it("is refused when any byte, any character or its length is altered", () => {
    const tokens = createPageTokens([A]);
    const token = tokens.encode(cursor, binding);
    const [version, body = ""] = token.split(".");
    const bytes = Buffer.from(body, "base64url");
    for (let i = 0; i < bytes.length; i++) {
      const altered = Buffer.from(bytes);
      altered[i] = (altered[i] as number) ^ 0x01;
      expect(
        tokens.decode(`${version}.${altered.toString("base64url")}`, binding),
        `byte ${i}`,
      ).toBeUndefined();
    }
    for (let i = 0; i < token.length; i++) {
      const replacement = token[i] === "A" ? "B" : "A";
      const altered = token.slice(0, i) + replacement + token.slice(i + 1);
      expect(tokens.decode(altered, binding), `character ${i}`).toBeUndefined();
    }
    for (const altered of [
      token.slice(0, -1),
      `${token}A`,
      `${token}.`,
      `2.${bytes.subarray(0, 27).toString("base64url")}`,
    ]) {
      expect(tokens.decode(altered, binding), altered).toBeUndefined();
    }
  });

  it("of the earlier signed format (1.) is refused", () => {
    const payload = Buffer.from(JSON.stringify(cursor)).toString("base64url");
    const mac = createHmac("sha256", A).update(`1\n${binding}\n${payload}`).digest("base64url");
    expect(createPageTokens([A]).decode(`1.${payload}.${mac}`, binding)).toBeUndefined();
  });

  it("of one process is refused by another without a shared secret", () => {
    const token = createPageTokens().encode(cursor, binding);
    expect(createPageTokens().decode(token, binding)).toBeUndefined();
  });
});

describe("rotating PAGE_TOKEN_SECRET", () => {
  it("reads a token sealed under A with B,A, but not with B alone", () => {
    const token = createPageTokens([A]).encode(cursor, binding);
    expect(createPageTokens([B, A]).decode(token, binding)).toEqual(cursor);
    expect(createPageTokens([B]).decode(token, binding)).toBeUndefined();
  });

  it("seals with the first secret: a token of B,A is read by B,A and by B alone, not by A alone", () => {
    const token = createPageTokens([B, A]).encode(cursor, binding);
    expect(createPageTokens([B, A]).decode(token, binding)).toEqual(cursor);
    expect(createPageTokens([B]).decode(token, binding)).toEqual(cursor);
    expect(createPageTokens([A]).decode(token, binding)).toBeUndefined();
  });
});
