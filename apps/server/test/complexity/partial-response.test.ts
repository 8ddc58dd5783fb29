// A partial response's `fields` parameter (AIP-157, Google's field selector syntax) is taken from
// the query string and parsed into the fields it selects in time linear in the query string, however
// the selection repeats, nests or breaks the syntax.
import { collectHttpRoutes } from "@folio/http-transcoder";
import { describe, it } from "vitest";
import { services } from "../../src/services/api.js";
import type { InputFamily } from "./costliest-input.js";
import { repeatTo } from "./hostile-names.js";
import { expectLinearCost } from "./linear-cost.js";
import { parseFieldSelection, takeFieldsParameter } from "./package-internals.js";

/**
 * 32 Ki characters: 2N is HTTP/2's default limit of a request's headers (64 KiB; HTTP/1.1's is
 * 16 KiB), the most a client can send (see linear-cost.ts on N).
 */
const SIZE = 1 << 15;

const listProjects = collectHttpRoutes(services).find((route) => route.method.name === "ListProjects");
if (listProjects === undefined) throw new Error("no REST route for ListProjects");
/** What a selection picks from: ListProjects' answer (projects and nextPageToken). */
const answer = listProjects.method.output;

/** Takes `fields` from the query string and parses it, as the transcoder does; a refusal is an outcome. */
function selectFields(query: string): unknown {
  try {
    const { fields } = takeFieldsParameter(query);
    return fields === undefined ? undefined : parseFieldSelection(fields, answer);
  } catch (error) {
    return error;
  }
}

/** Query strings of about `size` characters whose `fields` makes the parser work hardest. */
const QUERIES: readonly InputFamily<string>[] = [
  {
    label: "a field selected many times",
    build: (size) => `fields=${repeatTo("projects,", size)}nextPageToken`,
  },
  {
    label: "a selection inside a field, repeated (each merged into the last)",
    build: (size) => `fields=${repeatTo("projects(id,name,city),", size)}nextPageToken`,
  },
  { label: "one selection of many fields", build: (size) => `fields=projects(${repeatTo("id,", size)}name)` },
  {
    label: "the slash form, repeated",
    build: (size) => `fields=${repeatTo("projects/id,", size)}nextPageToken`,
  },
  {
    label: "fields named by their proto names",
    build: (size) => `fields=${repeatTo("next_page_token,", size)}projects`,
  },
  { label: "a long unknown field name", build: (size) => `fields=${repeatTo("a", size)}` },
  { label: "a long name, then a bad character", build: (size) => `fields=${repeatTo("projects", size)}!` },
  { label: "opening parentheses", build: (size) => `fields=projects${repeatTo("(", size)}` },
  { label: "percent escapes", build: (size) => `fields=${repeatTo("projects%2C", size)}nextPageToken` },
  { label: "malformed percent escapes", build: (size) => `fields=${repeatTo("%", size)}` },
  { label: "the fields parameter repeated", build: (size) => repeatTo("fields=projects&", size) },
  { label: "other parameters around it", build: (size) => `${repeatTo("city=a&", size)}fields=projects` },
];

describe("a fields parameter is taken and parsed in time linear in the query string", () => {
  it.each(QUERIES.map((query) => [query.label, query] as const))("%s", async (label, query) => {
    await expectLinearCost({
      label: `fields parameter, ${label}`,
      size: SIZE,
      input: query.build,
      step: selectFields,
    });
  });
});
