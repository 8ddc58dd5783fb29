// The rules' regular expressions are matched in the platform's engine where that is as safe as
// RE2 (linearRegexMatch of @folio/proto): for every pattern the API's rules declare, and on any
// value, it answers as RE2 does.
import { getOption } from "@bufbuild/protobuf";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { RE2JS } from "@bufbuild/re2";
import { linearRegexMatch } from "@folio/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { services } from "../src/services/api.js";

/** Every pattern of the requests' rules: `string.pattern`, and each CEL rule's `matches(r'...')`. */
function declaredPatterns(): string[] {
  const patterns = new Set<string>();
  for (const method of services.flatMap((service) => service.methods)) {
    for (const field of method.input.fields) {
      const rules = getOption(field, fieldRules);
      if (rules.type.case === "string" && rules.type.value.pattern !== undefined) {
        patterns.add(rules.type.value.pattern);
      }
      for (const rule of rules.cel) {
        for (const [, pattern] of rule.expression.matchAll(/matches\(r'((?:[^'\\]|\\.)*)'\)/g)) {
          patterns.add(pattern as string);
        }
      }
    }
  }
  return [...patterns];
}

/** Characters the rules care about: controls, white space, invisible ones, ASCII, astral. */
const PIECES = [
  ..."aZ09._-#/\\ .~!",
  "\t",
  "\n",
  "\u000B",
  "\f",
  "\r",
  "\u0000",
  "\u0001",
  "\u001F",
  "\u007F",
  "\u0085",
  "\u009F",
  "\u00A0",
  "\u1680",
  "\u2000",
  "\u200A",
  "\u200B",
  "\u2028",
  "\u3000",
  "\uFEFF",
  "é",
  "\u{1F469}",
  "\u{10FFFF}",
];

describe("linearRegexMatch", () => {
  const patterns = declaredPatterns();

  it("has the API's patterns to match (the rules declare some)", () => {
    expect(patterns.length).toBeGreaterThanOrEqual(4);
  });

  it("answers as RE2 does for every pattern the API declares, on any value", () => {
    const engines = patterns.map((pattern) => [pattern, RE2JS.compile(pattern)] as const);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }), (pieces) => {
        const value = pieces.join("");
        for (const [pattern, re2] of engines) {
          expect(linearRegexMatch(pattern, value), `${pattern} on ${JSON.stringify(value)}`).toBe(
            re2.test(value),
          );
        }
      }),
      { numRuns: 3000, seed: 20_261_127 },
    );
  });

  it("answers as RE2 does for patterns it leaves to RE2 (groups, alternation, classes)", () => {
    for (const [pattern, value] of [
      ["^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", "#abc"],
      ["^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", "#abcd"],
      ["^\\d+$", "123"],
      ["[[:alpha:]]", "1"],
    ] as const) {
      expect(linearRegexMatch(pattern, value)).toBe(RE2JS.compile(pattern).test(value));
    }
  });
});
