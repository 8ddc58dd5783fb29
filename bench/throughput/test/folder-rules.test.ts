// The baselines' name rules are a copy of Folio's (the server package does not export them): the
// same names get the same normalised form, the same name_key and the same refusals.
import { describe, expect, it } from "vitest";
// Folio's own rules, from the server's sources (its build is one bundle that exports nothing).
import { validateCreateFolder } from "../../../apps/server/src/services/create-folder-request.ts";
import { ApiError } from "../src/baseline/api-error.ts";
import { validateFolder } from "../src/baseline/folder-rules.ts";

const NAMES = [
  "Contracts",
  "  Straße  ",
  "STRASSE",
  "Cafe\u0301",
  "ΌΣΟΣ",
  "İstanbul",
  "ﬃ",
  "👩\u200D💻 Dev",
  "a\u200Db",
  "bad\u202Ename",
  "x\uFFFEy",
  "tab\there",
  "a/b",
  "a\\b",
  ".",
  "..",
  "",
  "   ",
  "é".repeat(255),
  "é".repeat(256),
];

describe("the baselines' CreateFolder rules", () => {
  it.each(NAMES)("treat %j as Folio does", (name) => {
    for (const color of [undefined, "#ABC", "#a1B2c3", "red"]) {
      const request = { name, color, parentId: undefined, requestId: undefined };
      let folio: unknown;
      try {
        const valid = validateCreateFolder(
          { ...request, $typeName: "folio.v1.CreateFolderRequest" },
          new Headers(),
        );
        folio = { name: valid.name, nameKey: valid.nameKey, color: valid.color };
      } catch (error) {
        folio = { refused: (error as { rawMessage: string }).rawMessage };
      }
      let baseline: unknown;
      try {
        const valid = validateFolder(request, undefined);
        baseline = { name: valid.name, nameKey: valid.nameKey, color: valid.color };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        baseline = { refused: error.message };
      }
      expect(baseline).toEqual(folio);
    }
  });
});
