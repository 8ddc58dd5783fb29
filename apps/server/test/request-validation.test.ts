// The name rules of CreateFolder are stated on the name trimmed and in NFC, but protovalidate checks
// the name as sent. These tests hold the proto's rules (with the service's own) to the statement:
// for every name, the same rules are broken.
import { create, getOption } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import {
  CreateFolderRequestSchema,
  declaredErrors,
  declaredScopes,
  ErrorResponseSchema,
  FolderService,
  RequestHeaderSchema,
  requestHeaders,
  ruleDescription,
  ScopeSchema,
  sharedErrors,
} from "@folio/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { services } from "../src/services/api.js";
import { createFolderRules } from "../src/services/create-folder-request.js";
import { createRequestValidation } from "../src/services/request-validation.js";

const validation = createRequestValidation([FolderService.method.createFolder], [createFolderRules]);

/** The descriptions of the rules `name` breaks, as the server's validation step finds them. */
function brokenRules(name: string): string[] {
  const request = create(CreateFolderRequestSchema, { name });
  return validation
    .check(FolderService.method.createFolder, request, new Headers())
    .filter((violation) => violation.field === "name")
    .map((violation) => violation.description)
    .sort();
}

const INVISIBLE =
  /[\p{Bidi_Control}\u200B\u200C\u2060-\u2064\uFEFF\p{Noncharacter_Code_Point}]|(?<!\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/u;

/** The rules as folder.proto states them, on the name trimmed and in NFC. */
function statedRules(sent: string): string[] {
  const name = sent.normalize("NFC").trim();
  const broken: string[] = [];
  if (name === "") return ["must not be empty"];
  // A run of more than 30 combining marks as sent is refused for that, and its length not counted.
  if (/\p{M}{31}/u.test(sent)) broken.push("must not contain more than 30 combining marks in a row");
  else if ([...name].length > 255) broken.push("must be at most 255 characters");
  if (/\p{Cc}/u.test(name)) broken.push("must not contain control characters");
  const invisible = INVISIBLE.exec(name)?.[0];
  if (invisible !== undefined) {
    const codePoint = (invisible.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    broken.push(
      `must not contain invisible characters, bidirectional controls or noncharacters (U+${codePoint})`,
    );
  }
  if (/[/\\]/.test(name)) broken.push('must not contain "/" or "\\"');
  if (name === "." || name === "..") broken.push('must not be "." or ".."');
  return broken.sort();
}

/** Every code point of the Basic Multilingual Plane but the surrogates, and a few beyond it. */
const CODE_POINTS = [
  ...Array.from({ length: 0x10000 }, (_, i) => i).filter((c) => c < 0xd800 || c > 0xdfff),
  0x1d11e,
  0x1f469,
  0x1fffe,
  0xe0001,
  0x10ffff,
];

describe("CreateFolder's name rules, checked on the name as sent", () => {
  it("take for white space exactly what the service trims, for every code point", () => {
    const differ = CODE_POINTS.map((c) => String.fromCodePoint(c)).filter(
      (c) => brokenRules(`${c}${c}`).includes("must not be empty") !== (c.normalize("NFC").trim() === ""),
    );
    expect(differ).toEqual([]);
  });

  it("refuse a control character inside a name and allow one around it, for every code point", () => {
    const differ = CODE_POINTS.map((c) => String.fromCodePoint(c)).filter((c) => {
      for (const name of [`a${c}b`, `${c}ab`, `ab${c}`]) {
        const refused = brokenRules(name).includes("must not contain control characters");
        if (refused !== statedRules(name).includes("must not contain control characters")) return true;
      }
      return false;
    });
    expect(differ).toEqual([]);
  });

  it("break the same rules as the name trimmed and in NFC would, for any name", () => {
    const piece = fc.constantFrom(
      "a",
      "Z",
      "é",
      "e\u0301",
      "\u212B",
      "<\u0338",
      ".",
      "/",
      "\\",
      " ",
      "\t",
      "\n",
      "\r",
      "\u000B",
      "\f",
      "\u0085",
      "\u00A0",
      "\u1680",
      "\u180E",
      "\u2000",
      "\u2001",
      "\u200A",
      "\u2028",
      "\u3000",
      "\uFEFF",
      "\u0000",
      "\u0001",
      "\u001F",
      "\u007F",
      "\u009F",
      "\u061C",
      "\u200B",
      "\u200D",
      "\u202E",
      "\uFFFF",
      "\u{1F469}",
      "\uFE0F",
      "\u{1F4BB}",
      "x".repeat(60),
      "\u0301".repeat(16),
      "\u0316\u0301".repeat(8),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const name = pieces.join("");
        expect(brokenRules(name), JSON.stringify(name)).toEqual(statedRules(name));
      }),
      { numRuns: 5000, seed: 20_261_127 },
    );
  });
});

describe("CreateFolder's idempotency key", () => {
  it("has one rule, whether sent as the Idempotency-Key header or the request_id field", () => {
    const header = requestHeaders(FolderService.method.createFolder).find(
      (h) => h.name === "Idempotency-Key",
    );
    const requestId = CreateFolderRequestSchema.field.requestId;
    const rules = getOption(requestId, fieldRules).type;
    expect(rules.case).toBe("string");
    const string = rules.case === "string" ? rules.value : undefined;
    expect({
      minLength: header?.minLength,
      maxLength: header?.maxLength,
      pattern: header?.pattern,
      rule: header?.rule,
    }).toEqual({
      minLength: Number(string?.minLen),
      maxLength: Number(string?.maxLen),
      pattern: string?.pattern,
      rule: ruleDescription(requestId),
    });
  });
});

describe("the API's options", () => {
  const validator = createValidator();
  const methods = services.flatMap((service) => service.methods);

  it("keep the rules options.proto declares for them: error codes, scope names, header names", () => {
    const results = [
      ...methods.flatMap((m) => declaredErrors(m).map((e) => validator.validate(ErrorResponseSchema, e))),
      ...services.flatMap((s) => sharedErrors(s).map((e) => validator.validate(ErrorResponseSchema, e))),
      ...services.flatMap((s) => declaredScopes(s).map((scope) => validator.validate(ScopeSchema, scope))),
      ...methods.flatMap((m) => requestHeaders(m).map((h) => validator.validate(RequestHeaderSchema, h))),
    ];
    expect(results.length).toBeGreaterThan(10);
    expect(results.flatMap((result) => result.violations?.map(String) ?? [])).toEqual([]);
  });

  it("would refuse an unknown error code, a scope with a space and a header range upside down", () => {
    const refused = [
      validator.validate(
        ErrorResponseSchema,
        create(ErrorResponseSchema, { code: "teapot", condition: "x" }),
      ),
      validator.validate(ScopeSchema, create(ScopeSchema, { name: "files upload", description: "x" })),
      validator.validate(
        RequestHeaderSchema,
        create(RequestHeaderSchema, {
          name: "X-Key",
          description: "x",
          rule: "x",
          minLength: 5,
          maxLength: 2,
        }),
      ),
    ];
    expect(refused.map((result) => result.kind)).toEqual(["invalid", "invalid", "invalid"]);
  });
});
