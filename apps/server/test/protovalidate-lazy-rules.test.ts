// Pins the patch of @bufbuild/protovalidate 1.3.0 (patches/; pnpm-workspace.yaml says why): the
// validators compile the CEL expressions of the rules that Folio's request fields set and the
// native checks do not take, not every expression of each rules message (StringRules alone has
// dozens; unpatched, these two requests compile 77). It fails without the patch, and says when an
// upgrade of protovalidate has changed what the patch relies on (CelManager.compileRule).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { create } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { CreateFolderRequestSchema, ListProjectsRequestSchema, linearRegexMatch } from "@folio/proto";
import { expect, it, vi } from "vitest";

/** protovalidate's CEL module, the one its validators use (the package does not export it). */
const celModule = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve("@bufbuild/protovalidate")), "../esm/cel.js"),
).href;

it("compiles only the CEL rules the requests' fields use, and still applies them", async () => {
  const { CelManager } = await import(celModule);
  const compileRule = vi.spyOn(CelManager.prototype, "compileRule");
  const validator = createValidator({ regexMatch: linearRegexMatch });
  const folder = (name: string) =>
    validator.validate(CreateFolderRequestSchema, create(CreateFolderRequestSchema, { name, color: "#abc" }));
  expect(folder("Reports").kind).toBe("valid");
  expect(
    validator.validate(ListProjectsRequestSchema, create(ListProjectsRequestSchema, { pageSize: 10 })).kind,
  ).toBe("valid");

  const compiled = compileRule.mock.calls.map(([rule]) => {
    const compiledRule = rule as string | { id: string };
    return typeof compiledRule === "string" ? compiledRule : compiledRule.id;
  });
  expect(compiled.sort()).toEqual([
    "name.no_control_characters",
    "name.no_slashes",
    "name.not_blank",
    "name.not_dots",
  ]);
  // Compiled once, then applied: a name that breaks two of them is refused by both.
  const refused = folder("a/\u0007");
  expect(refused.kind).toBe("invalid");
  if (refused.kind === "invalid") {
    expect(refused.violations.map((violation) => violation.ruleId).sort()).toEqual([
      "name.no_control_characters",
      "name.no_slashes",
    ]);
  }
  expect(compileRule.mock.calls.length).toBe(4);
  compileRule.mockRestore();
});
