// Every regular expression of the API's rules costs time linear in the value it is matched against,
// on the costliest of the texts built to make it slow: the buf.validate patterns as protovalidate
// matches them (linearRegexMatch: the platform's engine for a single bracket expression, RE2 for
// the rest), and the ECMAScript pattern of each request header's rule as the server applies it.
import { linearRegexMatch } from "@folio/proto";
import { describe, expect, it } from "vitest";
import { requestHeaderRule } from "../../src/services/request-header-rules.js";
import { costliest, TEXT_FAMILIES } from "./costliest-input.js";
import { expectLinearCost } from "./linear-cost.js";
import { declaredHeaderPatterns, declaredRulePatterns } from "./rule-patterns.js";

/**
 * Half a million code units: 2N is a value near the 1 MiB body limit (see linear-cost.ts on N). The
 * costliest text is chosen at a sixteenth of N.
 */
const SIZE = 1 << 19;

/**
 * 32 Ki characters for a header's value: 2N is HTTP/2's default limit of a request's headers (64
 * KiB; HTTP/1.1's is 16 KiB), the most a client can send (see linear-cost.ts on N). At the body's
 * sizes, counting a value's code points measured superlinear in the garbage collector's work (an
 * array of a million strings), where no header reaches.
 */
const HEADER_SIZE = 1 << 15;

const rulePatterns = declaredRulePatterns();
const headerPatterns = declaredHeaderPatterns();

describe("the rules' patterns, as found in the descriptors", () => {
  it("include the string patterns and the CEL matches() of folder.proto, project.proto and options.proto", () => {
    const where = rulePatterns.map((p) => p.where).join("\n");
    expect(where).toContain("folio.v1.CreateFolderRequest.name (name.not_dots)");
    expect(where).toContain("folio.v1.CreateFolderRequest.color (string.pattern)");
    expect(where).toContain("folio.v1.ListProjectsRequest.page_token (string.pattern)");
    expect(where).toContain("folio.v1.RequestHeader.name (string.pattern)");
    expect(headerPatterns.map((p) => p.where)).toContain(
      "folio.v1.FolderService.CreateFolder header Idempotency-Key",
    );
  });
});

describe("each pattern of the buf.validate rules is matched in time linear in the value", () => {
  it.each(rulePatterns.map((p) => [p.where, p.pattern] as const))("%s: %s", async (_where, pattern) => {
    const match = (text: string) => linearRegexMatch(pattern, text);
    const family = costliest(TEXT_FAMILIES, match, SIZE >> 4);
    await expectLinearCost({
      label: `linearRegexMatch(${JSON.stringify(pattern)}), ${family.label}`,
      size: SIZE,
      input: family.build,
      step: match,
    });
  });
});

describe("each request header's rule is checked in time linear in the value", () => {
  it.each(headerPatterns.map((p) => [p.where, p.pattern, p] as const))(
    "%s: %s",
    async (_, pattern, declared) => {
      const rule = requestHeaderRule(declared.method, declared.header);
      const broken = (value: string) => rule.broken(value);
      const family = costliest(TEXT_FAMILIES, broken, HEADER_SIZE >> 4);
      await expectLinearCost({
        label: `the ${declared.header} rule (${JSON.stringify(pattern)}), ${family.label}`,
        size: HEADER_SIZE,
        input: family.build,
        step: broken,
      });
    },
  );
});
