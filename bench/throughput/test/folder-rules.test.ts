// The baselines' name rules are a copy of Folio's (the server package does not export them): the
// same names get the same normalised form, the same name_key and the same refusals.

import { create } from "@bufbuild/protobuf";
import { invalidArgument } from "@folio/googleapis";
import { CreateFolderRequestSchema, FolderService } from "@folio/proto";
import { describe, expect, it } from "vitest";
// Folio's own rules, from the server's sources (its build is one bundle that exports nothing):
// the proto's buf.validate rules and the service's, as the server's validation step runs them.
import {
  createFolderRules,
  normaliseCreateFolder,
} from "../../../apps/server/src/services/create-folder-request.ts";
import { createRequestValidation } from "../../../apps/server/src/services/request-validation.ts";
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

const validation = createRequestValidation([FolderService.method.createFolder], [createFolderRules]);

describe("the baselines' CreateFolder rules", () => {
  it.each(NAMES)("treat %j as Folio does", (name) => {
    for (const color of [undefined, "#ABC", "#a1B2c3", "red"]) {
      const request = { name, color, parentId: undefined, requestId: undefined };
      const message = create(CreateFolderRequestSchema, request);
      const violations = validation.check(FolderService.method.createFolder, message, new Headers());
      let folio: unknown;
      if (violations.length > 0) {
        folio = { refused: invalidArgument(violations).rawMessage };
      } else {
        const valid = normaliseCreateFolder(message, new Headers());
        folio = { name: valid.name, nameKey: valid.nameKey, color: valid.color };
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
