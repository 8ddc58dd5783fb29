import type { DescMessage } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { fieldValueParser } from "../src/field-value.js";
import * as transcoder from "../src/index.js";
import * as rules from "../src/rules.js";
import { LibraryService } from "./gen/transcodertest/v1/library_pb.js";

describe("@folio/http-transcoder/rules", () => {
  it("is exported by the package's main entry too, the same functions", () => {
    const main: Record<string, unknown> = { ...transcoder };
    for (const [name, value] of Object.entries(rules)) expect(main[name], name).toBe(value);
  });

  it("names Connect's codes by their numbers", () => {
    expect(rules.restErrorRules).toEqual({
      invalidRequest: { code: Code.InvalidArgument, httpStatus: 400 },
      noRoute: { code: Code.NotFound, httpStatus: 404 },
      methodNotAllowed: { code: Code.Unimplemented, httpStatus: 405 },
      contentTooLarge: { code: Code.ResourceExhausted, httpStatus: 413 },
      unsupportedMediaType: { code: Code.InvalidArgument, httpStatus: 415 },
      internal: { code: Code.Internal, httpStatus: 500 },
    });
  });

  it("says a URL can hold exactly the fields the transcoder has a parser of values for", () => {
    const messages = new Set<DescMessage>();
    const visit = (message: DescMessage) => {
      if (messages.has(message)) return;
      messages.add(message);
      for (const field of message.fields) if (field.message !== undefined) visit(field.message);
    };
    for (const method of LibraryService.methods) visit(method.input);
    const fields = [...messages].flatMap((message) => message.fields);
    expect(fields.some((field) => !rules.hasUrlForm(field))).toBe(true);
    for (const field of fields) {
      expect(fieldValueParser(field) !== undefined, field.toString()).toBe(rules.hasUrlForm(field));
    }
  });
});
