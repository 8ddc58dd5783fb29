import { describe, expect, it } from "vitest";
import { tokenKey } from "../src/index.js";

describe("tokenKey", () => {
  it("is the SHA-256 of the token, in hex", () => {
    expect(tokenKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it.each([["Bearer abc"], ["bearer abc"], ["BEARER   abc"], ["  Bearer abc  "]])(
    "keys %j like the bare token, so spelling the header differently cannot dodge the limit",
    (header) => {
      expect(tokenKey(header)).toBe(tokenKey("abc"));
    },
  );

  it("keys different tokens apart", () => {
    expect(tokenKey("Bearer abd")).not.toBe(tokenKey("Bearer abc"));
  });
});
