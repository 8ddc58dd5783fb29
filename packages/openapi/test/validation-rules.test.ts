/**
 * protovalidate rules (`buf.validate`) in the document: a small API whose fields use the rules
 * JSON Schema has keywords for and some it has not, its descriptors built here as the library's
 * are (any API's descriptors must do). The document's request schema and protovalidate itself
 * must then agree on which requests are valid, for every rule the schema states.
 */
import {
  create,
  createFileRegistry,
  type DescMessage,
  type DescService,
  fromJson,
  type MessageInitShape,
  setExtension,
} from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_descriptor,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_timestamp,
  MessageOptionsSchema,
  OneofOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import { createValidator } from "@bufbuild/protovalidate";
import {
  type FieldRulesSchema,
  file_buf_validate_validate,
  Ignore,
  MessageRulesSchema,
  message as messageRules,
  OneofRulesSchema,
  oneof as oneofRules,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createOpenApiDocument, type OperationObject, type SchemaObject } from "../src/index.js";
import { type FieldInit, field as fieldDescriptor, httpOptions } from "./descriptor-builders.js";

const { STRING, INT32, INT64, ENUM, MESSAGE } = FieldDescriptorProto_Type;
type Rules = MessageInitShape<typeof FieldRulesSchema>;

/** A field with protovalidate rules; `more` as `FieldInit` takes it. */
function field(
  name: string,
  number: number,
  type: FieldDescriptorProto_Type,
  rules: Rules,
  more: Partial<FieldInit> = {},
) {
  return fieldDescriptor({ name, number, type, rules, ...more });
}

const string = (value: MessageInitShape<typeof FieldRulesSchema>["type"] & { case: "string" }) => value;

function messageOptions(rules: MessageInitShape<typeof MessageRulesSchema>) {
  const options = create(MessageOptionsSchema);
  setExtension(options, messageRules, create(MessageRulesSchema, rules));
  return options;
}

function oneofOptions(required: boolean) {
  const options = create(OneofOptionsSchema);
  setExtension(options, oneofRules, create(OneofRulesSchema, { required }));
  return options;
}

const shelvesFile = create(FileDescriptorProtoSchema, {
  name: "shelves/v1/shelves.proto",
  package: "shelves.v1",
  syntax: "proto3",
  dependency: ["buf/validate/validate.proto", "google/api/annotations.proto", "google/protobuf/empty.proto"],
  enumType: [
    {
      name: "Kind",
      value: [
        { name: "KIND_UNSPECIFIED", number: 0 },
        { name: "KIND_WALL", number: 1 },
        { name: "KIND_FLOOR", number: 2 },
        { name: "KIND_CEILING", number: 3 },
      ],
    },
  ],
  messageType: [
    {
      name: "CreateShelfRequest",
      field: [
        field("code", 1, STRING, {
          required: true,
          type: string({
            case: "string",
            // `\x{2D}` is RE2's way to write `-`.
            value: { minLen: 2n, maxLen: 8n, pattern: "^[A-Z]\\x{2D}?[A-Z0-9]+$" },
          }),
          cel: [
            {
              id: "code.not_test",
              message: "must not start with TEST",
              expression: "!this.startsWith('TEST')",
            },
          ],
        }),
        field(
          "owner_id",
          2,
          STRING,
          { type: { case: "string", value: { wellKnown: { case: "uuid", value: true } } } },
          { proto3Optional: true, oneofIndex: 1 },
        ),
        field("label", 3, STRING, {
          ignore: Ignore.IF_ZERO_VALUE,
          type: { case: "string", value: { minLen: 3n } },
        }),
        field("floor", 4, INT32, {
          type: {
            case: "int32",
            value: { greaterThan: { case: "gte", value: 1 }, lessThan: { case: "lt", value: 100 } },
          },
        }),
        field("outside", 5, INT32, {
          type: {
            case: "int32",
            value: { greaterThan: { case: "gt", value: 10 }, lessThan: { case: "lt", value: 5 } },
          },
        }),
        field("size", 6, STRING, { type: { case: "string", value: { in: ["S", "M", "L"] } } }),
        field(
          "kind",
          7,
          ENUM,
          { type: { case: "enum", value: { in: [1, 2] } } },
          { typeName: ".shelves.v1.Kind" },
        ),
        field(
          "tags",
          8,
          STRING,
          {
            type: {
              case: "repeated",
              value: {
                maxItems: 3n,
                unique: true,
                items: { type: { case: "string", value: { minLen: 1n, pattern: "^[a-z]+$" } } },
              },
            },
          },
          { repeated: true },
        ),
        field(
          "limits",
          9,
          MESSAGE,
          {
            type: {
              case: "map",
              value: {
                maxPairs: 2n,
                keys: { type: { case: "string", value: { pattern: "^[a-z]+$" } } },
                values: { type: { case: "int32", value: { greaterThan: { case: "gte", value: 0 } } } },
              },
            },
          },
          {
            repeated: true,
            typeName: ".shelves.v1.CreateShelfRequest.LimitsEntry",
          },
        ),
        field("weight", 10, INT64, {
          type: { case: "int64", value: { greaterThan: { case: "gte", value: 0n } } },
        }),
        field("nickname", 11, STRING, { type: { case: "string", value: { pattern: "(?i)^bob$" } } }),
        field("ignored", 12, STRING, {
          ignore: Ignore.ALWAYS,
          type: { case: "string", value: { minLen: 5n } },
        }),
        field(
          "room",
          13,
          STRING,
          { type: { case: "string", value: { prefix: "R-", maxBytes: 12n } } },
          { oneofIndex: 0 },
        ),
        field(
          "hall",
          14,
          STRING,
          { cel: [{ id: "hall.known", message: "must be a known hall", expression: "this != 'x'" }] },
          {
            oneofIndex: 0,
          },
        ),
      ],
      oneofDecl: [{ name: "place", options: oneofOptions(true) }, { name: "_owner_id" }],
      nestedType: [
        {
          name: "LimitsEntry",
          field: [
            create(FieldDescriptorProtoSchema, { name: "key", number: 1, type: STRING, jsonName: "key" }),
            create(FieldDescriptorProtoSchema, { name: "value", number: 2, type: INT32, jsonName: "value" }),
          ],
          options: create(MessageOptionsSchema, { mapEntry: true }),
        },
      ],
      options: messageOptions({
        cel: [
          {
            id: "floor_size",
            message: "shelves above floor 49 are size L",
            expression: "this.floor < 50 || this.size == 'L'",
          },
        ],
      }),
    },
    {
      name: "ListShelvesRequest",
      field: [
        field("page_size", 1, INT32, {
          type: {
            case: "int32",
            value: { greaterThan: { case: "gte", value: 0 }, lessThan: { case: "lte", value: 100 } },
          },
        }),
        field("filter", 2, STRING, { required: true, type: { case: "string", value: { maxLen: 20n } } }),
      ],
    },
  ],
  service: [
    {
      name: "ShelfService",
      method: [
        {
          name: "CreateShelf",
          inputType: ".shelves.v1.CreateShelfRequest",
          outputType: ".google.protobuf.Empty",
          options: httpOptions({ pattern: { case: "post", value: "/v1/shelves" }, body: "*" }),
        },
        {
          name: "ListShelves",
          inputType: ".shelves.v1.ListShelvesRequest",
          outputType: ".google.protobuf.Empty",
          options: httpOptions({ pattern: { case: "get", value: "/v1/shelves" } }),
        },
      ],
    },
  ],
});

const registry = createFileRegistry(
  shelvesFile,
  (name) =>
    [
      file_buf_validate_validate,
      file_google_protobuf_descriptor,
      file_google_protobuf_duration,
      file_google_protobuf_empty,
      file_google_protobuf_field_mask,
      file_google_protobuf_timestamp,
    ].find((file) => `${file.name}.proto` === name) ??
    // google/api/annotations.proto only declares the `http` extension, set above by value.
    (name === "google/api/annotations.proto" ? create(FileDescriptorProtoSchema, { name }) : undefined),
);
const ShelfService = registry.getService("shelves.v1.ShelfService") as DescService;
const CreateShelfRequest = registry.getMessage("shelves.v1.CreateShelfRequest") as DescMessage;

const document = createOpenApiDocument({
  services: [ShelfService],
  info: { title: "Shelves", version: "1" },
});
const request = document.components.schemas.CreateShelfRequest as SchemaObject;
const p = request.properties ?? {};

function operation(path: string, method: "get" | "post"): OperationObject {
  const op = document.paths[path]?.[method];
  if (op === undefined) throw new Error(`no ${method} ${path}`);
  return op;
}

describe("protovalidate rules in the document", () => {
  it("leave a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("turn string rules into minLength, maxLength, pattern (ECMA-262), format and enum", () => {
    expect(p.code).toMatchObject({
      type: "string",
      minLength: 2,
      maxLength: 8,
      pattern: "^[A-Z]\\x2D?[A-Z0-9]+$",
    });
    expect(p.ownerId).toMatchObject({ type: ["string", "null"], format: "uuid" });
    expect(p.size).toMatchObject({ type: "string", enum: ["S", "M", "L"] });
    // prefix is a pattern; the byte length has no keyword: a sentence.
    expect(p.room).toMatchObject({ pattern: "^R-" });
    expect(p.room?.description).toContain("- must be at most 12 bytes long in UTF-8");
  });

  it("turn number rules into minimum, maximum and their exclusive forms", () => {
    expect(p.floor).toMatchObject({ type: "integer", minimum: 1, exclusiveMaximum: 100 });
    // `lt` below `gt`: outside the range.
    expect(p.outside).toMatchObject({ anyOf: [{ exclusiveMaximum: 5 }, { exclusiveMinimum: 10 }] });
    // 64-bit integers are JSON strings: their bounds are said in words.
    expect(p.weight).toMatchObject({ type: "string", format: "int64" });
    expect(p.weight?.description).toContain("- must be at least 0");
  });

  it("restrict an enum to the values of `in`, beside its component", () => {
    expect(p.kind).toEqual({
      allOf: [{ $ref: "#/components/schemas/Kind" }, { enum: ["KIND_WALL", "KIND_FLOOR"] }],
    });
  });

  it("constrain lists, their items, maps, their keys and values", () => {
    expect(p.tags).toMatchObject({
      type: "array",
      maxItems: 3,
      uniqueItems: true,
      items: { type: "string", minLength: 1, pattern: "^[a-z]+$" },
    });
    expect(p.limits).toMatchObject({
      type: "object",
      maxProperties: 2,
      propertyNames: { pattern: "^[a-z]+$" },
      additionalProperties: { type: "integer", minimum: 0 },
    });
  });

  it("make `required` a required property, and a string without presence non-empty", () => {
    // And a field without presence whose zero value (what leaving it out sends) breaks a rule.
    expect(request.required).toEqual(["code", "floor", "size", "kind"]);
    expect(p.code?.minLength).toBe(2);
  });

  it("exempt the zero value under IGNORE_IF_ZERO_VALUE, and drop rules under IGNORE_ALWAYS", () => {
    expect(p.label).toEqual({ type: "string", anyOf: [{ const: "" }, { minLength: 3 }] });
    expect(p.ignored).toEqual({ type: "string" });
  });

  it("append CEL rules' messages, and rules without a keyword, to the descriptions", () => {
    expect(p.code?.description).toBe("Validation rules:\n- must not start with TEST");
    expect(p.nickname?.pattern).toBeUndefined();
    expect(p.nickname?.description).toBe(
      "Validation rules:\n- must match the RE2 regular expression `(?i)^bob$` (not given as `pattern`: it uses inline flags (`(?i)`, `(?s)`...), which ECMA-262 patterns cannot hold)",
    );
    expect(p.hall?.description).toBe(
      "Part of oneof `place`: exactly one of `room`, `hall` is set.\n\nValidation rules:\n- must be a known hall",
    );
    expect(request.description).toBe("Validation rules:\n- shelves above floor 49 are size L");
  });

  it("constrain query parameters alike, required ones included", () => {
    const parameters = (operation("/v1/shelves", "get").parameters ?? []).slice(0, 2);
    expect(parameters.map((q) => [q.name, q.required ?? false, q.schema])).toEqual([
      ["pageSize", false, { type: "integer", format: "int32", minimum: 0, maximum: 100 }],
      ["filter", true, { type: "string", maxLength: 20, minLength: 1 }],
    ]);
  });

  describe("agree with protovalidate on which requests are valid", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    const schemaValid = ajv.compile({ ...request, components: document.components });
    const validator = createValidator();
    /** Rules said in words only: CEL rules, and the nickname's pattern that has no ECMA-262 form. */
    const WORDS_ONLY = new Set(["floor_size", "code.not_test", "hall.known"]);
    /** protovalidate's verdict on the rules the schema states: CEL rules and the oneof are words. */
    const protovalidateValid = (json: Record<string, unknown>) => {
      const result = validator.validate(CreateShelfRequest, fromJson(CreateShelfRequest, json as never));
      if (result.kind === "error") throw result.error;
      return (result.violations ?? []).every(
        (v) => WORDS_ONLY.has(v.ruleId) || (v.field[0] as { name?: string } | undefined)?.name === "nickname",
      );
    };
    // The nickname's pattern is said in words only; its zero value breaks it.
    const valid = { code: "A-12", floor: 3, room: "R-1", size: "S", kind: "KIND_WALL", nickname: "Bob" };
    const samples: [string, Record<string, unknown>][] = [
      ["valid", valid],
      [
        "all set",
        {
          ...valid,
          ownerId: "5A0C3F52-1D44-4D0B-9A57-31AB1CBB8A7E",
          label: "top",
          outside: 11,
          size: "M",
          kind: "KIND_FLOOR",
          tags: ["a", "b"],
          limits: { a: 1 },
        },
      ],
      ["no code", (({ code, ...rest }) => rest)(valid)],
      ["code too long", { ...valid, code: "A-1234567" }],
      ["code with a lower-case letter", { ...valid, code: "a-12" }],
      ["code one character", { ...valid, code: "A" }],
      ["owner not a UUID", { ...valid, ownerId: "owner" }],
      ["empty label (exempt)", { ...valid, label: "" }],
      ["short label", { ...valid, label: "ab" }],
      ["floor 0", { ...valid, floor: 0 }],
      ["floor 100", { ...valid, floor: 100 }],
      ["floor 99", { ...valid, floor: 99, size: "L" }],
      ["outside 7", { ...valid, outside: 7 }],
      ["outside 4", { ...valid, outside: 4 }],
      ["size XL", { ...valid, size: "XL" }],
      ["kind ceiling", { ...valid, kind: "KIND_CEILING" }],
      ["four tags", { ...valid, tags: ["a", "b", "c", "d"] }],
      ["repeated tag", { ...valid, tags: ["a", "a"] }],
      ["empty tag", { ...valid, tags: [""] }],
      ["upper-case tag", { ...valid, tags: ["A"] }],
      ["three limits", { ...valid, limits: { a: 1, b: 2, c: 3 } }],
      ["limit key with a digit", { ...valid, limits: { a1: 1 } }],
      ["negative limit", { ...valid, limits: { a: -1 } }],
      ["room without prefix", { ...valid, room: "1" }],
      ["ignored rule broken", { ...valid, ignored: "a" }],
      ["nickname not Bob (words only)", { ...valid, nickname: "Al" }],
      // Left out, a field without presence is its zero value: floor 0, size "", KIND_UNSPECIFIED.
      ["no floor", (({ floor, ...rest }) => rest)(valid)],
      ["no size", (({ size, ...rest }) => rest)(valid)],
      ["no kind", (({ kind, ...rest }) => rest)(valid)],
    ];
    for (const [name, json] of samples) {
      it(name, () => {
        const verdict = protovalidateValid(json);
        expect(schemaValid(json), ajv.errorsText(schemaValid.errors)).toBe(verdict);
      });
    }
    it("both refuse some samples", () => {
      expect(samples.filter(([, json]) => !protovalidateValid(json)).length).toBeGreaterThan(15);
    });
  });
});
