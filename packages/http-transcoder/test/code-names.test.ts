import { Code } from "@connectrpc/connect";
// connect-es's own table, internal to it: only a test imports it, to pin the transcoder's copy.
import {
  codeFromString as connectCodeFromString,
  codeToHttpStatus as connectCodeToHttpStatus,
  codeToString as connectCodeToString,
} from "@connectrpc/connect/protocol-connect";
import { describe, expect, it } from "vitest";
import { codeFromString, codeToHttpStatus, codeToString } from "../src/rules.js";

describe("the code names and statuses", () => {
  const codes = Object.values(Code).filter((code): code is Code => typeof code === "number");

  it("names every code and answers it with the status connect-es's handlers use", () => {
    expect(codes).toHaveLength(16);
    for (const code of codes) {
      expect(codeToString(code)).toBe(connectCodeToString(code));
      expect(codeFromString(codeToString(code))).toBe(code);
      expect(codeFromString(connectCodeToString(code))).toBe(
        connectCodeFromString(connectCodeToString(code)),
      );
      expect(codeToHttpStatus(code)).toBe(connectCodeToHttpStatus(code));
    }
    expect(codeFromString("no_such_code")).toBe(connectCodeFromString("no_such_code"));
  });

  it("writes a number that is not a code as its digits, answered with 500", () => {
    expect(codeToString(99 as Code)).toBe("99");
    expect(codeToHttpStatus(99 as Code)).toBe(500);
  });
});
