import { describe, expect, it } from "vitest";
import { parsePathTemplate, pathTemplateToOpenApiPath } from "../src/index.js";

describe("parsePathTemplate", () => {
  it.each([
    {
      template: "/v1/shelves",
      segments: ["v1", "shelves"],
      variables: [],
      verb: undefined,
      openApiPath: "/v1/shelves",
    },
    {
      template: "/v1/{name}",
      segments: ["v1", "*"],
      variables: [{ fieldPath: ["name"], pattern: "*", start: 1, end: 2, multiSegment: false }],
      verb: undefined,
      openApiPath: "/v1/{name}",
    },
    {
      template: "/v1/{name=*}",
      segments: ["v1", "*"],
      variables: [{ fieldPath: ["name"], pattern: "*", start: 1, end: 2, multiSegment: false }],
      verb: undefined,
      openApiPath: "/v1/{name}",
    },
    {
      template: "/v1/{name=shelves/*/books/*}",
      segments: ["v1", "shelves", "*", "books", "*"],
      variables: [
        { fieldPath: ["name"], pattern: "shelves/*/books/*", start: 1, end: 5, multiSegment: true },
      ],
      verb: undefined,
      openApiPath: "/v1/{name}",
    },
    {
      template: "/v1/{book.name=shelves/*/books/*}",
      segments: ["v1", "shelves", "*", "books", "*"],
      variables: [
        { fieldPath: ["book", "name"], pattern: "shelves/*/books/*", start: 1, end: 5, multiSegment: true },
      ],
      verb: undefined,
      openApiPath: "/v1/{book.name}",
    },
    {
      template: "/v1/{parent=shelves/*}/books/{book_id}:publish",
      segments: ["v1", "shelves", "*", "books", "*"],
      variables: [
        { fieldPath: ["parent"], pattern: "shelves/*", start: 1, end: 3, multiSegment: true },
        { fieldPath: ["book_id"], pattern: "*", start: 4, end: 5, multiSegment: false },
      ],
      verb: "publish",
      openApiPath: "/v1/{parent}/books/{book_id}:publish",
    },
    {
      template: "/v1/files/{path=**}",
      segments: ["v1", "files", "**"],
      variables: [{ fieldPath: ["path"], pattern: "**", start: 2, end: 3, multiSegment: true }],
      verb: undefined,
      openApiPath: "/v1/files/{path}",
    },
    {
      template: "/v1/{name=projects/*/locations/**}:watch",
      segments: ["v1", "projects", "*", "locations", "**"],
      variables: [
        { fieldPath: ["name"], pattern: "projects/*/locations/**", start: 1, end: 5, multiSegment: true },
      ],
      verb: "watch",
      openApiPath: "/v1/{name}:watch",
    },
    {
      template: "/v1/{name=shelves}",
      segments: ["v1", "shelves"],
      variables: [{ fieldPath: ["name"], pattern: "shelves", start: 1, end: 2, multiSegment: false }],
      verb: undefined,
      openApiPath: "/v1/{name}",
    },
    {
      template: "/v1/*/books/**",
      segments: ["v1", "*", "books", "**"],
      variables: [],
      verb: undefined,
      openApiPath: "/v1/*/books/**",
    },
    {
      template: "/v1/caf%C3%A9",
      segments: ["v1", "café"],
      variables: [],
      verb: undefined,
      openApiPath: "/v1/café",
    },
  ])("parses $template", ({ template, segments, variables, verb, openApiPath }) => {
    const parsed = parsePathTemplate(template);
    expect(parsed.source).toBe(template);
    expect(
      parsed.segments.map((s) => (s.kind === "literal" ? s.value : s.kind === "wildcard" ? "*" : "**")),
    ).toEqual(segments);
    expect(parsed.variables).toEqual(variables);
    expect(parsed.verb).toBe(verb);
    expect(pathTemplateToOpenApiPath(parsed)).toBe(openApiPath);
  });

  it.each([
    ["v1/shelves", 'it must start with "/"'],
    ["/", "it has an empty segment"],
    ["/v1//shelves", "it has an empty segment"],
    ["/v1/shelves/", "it has an empty segment"],
    ["/v1/{name", 'a "{" is not closed'],
    ["/v1/{name=shelves/{id}}", "variables cannot be nested"],
    ["/v1/{}", '"" is not a field path'],
    ["/v1/{book..name}", '"book..name" is not a field path'],
    ["/v1/{1name}", '"1name" is not a field path'],
    ["/v1/{name}/{name}", 'the field "name" is bound twice'],
    ["/v1/{name=**}/books", '"**" must be the last segment'],
    ["/v1/**/books", '"**" must be the last segment'],
    ["/v1/shelves:", 'the verb "" is empty'],
    ["/v1/a:b/c", 'the verb "b/c" is empty or has characters'],
    ["/v1/she lves", 'the segment "she lves" has characters'],
    ["/v1/sh*lves", 'the segment "sh*lves" has characters'],
    ["/v1/a%2", 'the segment "a%2" has characters'],
    ["/v1/{name}x", 'unexpected "x"'],
  ])("refuses %s", (template, reason) => {
    expect(() => parsePathTemplate(template)).toThrow(`invalid path template "${template}": ${reason}`);
  });
});
