// REST's per-request steps before the call costs time linear in the request target: the target
// normalised and split into path and query (the server's origin-form, @folio/rpc-protocols'
// splitRequestTarget), the path looked up in the route table (the google.api.http path templates,
// compiled at start-up), and the query string split (form-urlencoded.ts) and bound to the
// request's fields (query-string.ts, query-binding.ts), each parameter checked.
import { collectHttpRoutes, splitRequestTarget } from "@folio/http-transcoder";
import { describe, it } from "vitest";
import { services } from "../../src/services/api.js";
import { normalizeRequestTarget } from "../../src/transport/origin-form.js";
import type { InputFamily } from "./costliest-input.js";
import { repeatTo } from "./hostile-names.js";
import { expectLinearCost } from "./linear-cost.js";
import { createRequestMessageReader, createRouteTable } from "./package-internals.js";

/**
 * 32 Ki characters: 2N is HTTP/2's default limit of a request's headers (64 KiB; HTTP/1.1's is
 * 16 KiB), the most a client can send (see linear-cost.ts on N).
 */
const SIZE = 1 << 15;

const routes = collectHttpRoutes(services);
const table = createRouteTable(routes.map((route) => ({ route })));
const listProjects = routes.find((route) => route.method.name === "ListProjects");
if (listProjects === undefined) throw new Error("no REST route for ListProjects");
const readListProjects = createRequestMessageReader(listProjects, {});

/** Runs `step`, a refusal included: a refused request is an outcome, not a failure of the test. */
function outcome(step: () => unknown): unknown {
  try {
    return step();
  } catch (error) {
    return error;
  }
}

/** Request targets of about `size` characters, built to be read in full. */
const TARGETS: readonly InputFamily<string>[] = [
  { label: "leading slashes", build: (size) => repeatTo("/", size) },
  {
    label: "an absolute form with a long host",
    build: (size) => `http://${repeatTo("a", size)}/api/v1/projects`,
  },
  { label: "an absolute form with a long path", build: (size) => `http://h/${repeatTo("a/", size)}` },
  { label: "question marks", build: (size) => `/api/v1/projects${repeatTo("?", size)}` },
];

describe("a request target is normalised and split in time linear in its length", () => {
  it.each(TARGETS.map((target) => [target.label, target] as const))("%s", async (label, target) => {
    await expectLinearCost({
      label: `normalizeRequestTarget and splitRequestTarget, ${label}`,
      size: SIZE,
      input: target.build,
      step: (url) => {
        const req = { url, headers: {} };
        normalizeRequestTarget(req);
        return splitRequestTarget(req.url);
      },
    });
  });
});

/** Paths of about `size` characters, built to make the route table's lookup work hardest. */
const PATHS: readonly InputFamily<string>[] = [
  { label: "many segments", build: (size) => `/api/v1/${repeatTo("a/", size)}` },
  { label: "many empty segments", build: (size) => repeatTo("/", size) },
  { label: "a segment of percent escapes", build: (size) => `/api/v1/${repeatTo("%61", size)}` },
  { label: "many segments of percent escapes", build: (size) => `/api/v1/${repeatTo("%61/", size)}` },
  { label: "malformed percent escapes", build: (size) => `/api/v1/${repeatTo("%/", size)}` },
  { label: "encoded slashes", build: (size) => `/api/v1/projects${repeatTo("%2F", size)}` },
  { label: "colons (custom verbs)", build: (size) => `/api/v1/projects${repeatTo(":", size)}` },
  { label: "a long custom verb", build: (size) => `/api/v1/projects:${repeatTo("a", size)}` },
];

describe("a path is looked up in the route table in time linear in its length", () => {
  it.each(PATHS.map((path) => [path.label, path] as const))("%s", async (label, path) => {
    await expectLinearCost({
      label: `route table lookup, ${label}`,
      size: SIZE,
      input: path.build,
      step: (target) => table.lookup("GET", target),
    });
  });
});

/** Query strings of about `size` characters for ListProjects, built to make binding them slow. */
const QUERIES: readonly InputFamily<string>[] = [
  { label: "a parameter repeated (the field is not repeated)", build: (size) => repeatTo("city=a&", size) },
  { label: "a number parameter repeated", build: (size) => repeatTo("pageSize=1&", size) },
  {
    label: "one field by its JSON and proto names, repeated",
    build: (size) => repeatTo("pageSize=1&page_size=1&", size),
  },
  { label: "invalid numbers", build: (size) => repeatTo("pageSize=x&", size) },
  { label: "a long value", build: (size) => `namePrefix=${repeatTo("a", size)}` },
  { label: "a value of percent escapes", build: (size) => `namePrefix=${repeatTo("%61", size)}` },
  { label: "a value of UTF-8 percent escapes", build: (size) => `namePrefix=${repeatTo("%E2%80%8B", size)}` },
  { label: "a value of malformed percent escapes", build: (size) => `namePrefix=${repeatTo("%", size)}` },
  { label: "a value of plus signs", build: (size) => `namePrefix=${repeatTo("+", size)}` },
  {
    label: "many distinct unknown parameters",
    build: (size) => Array.from({ length: size >> 3 }, (_, i) => `k${i.toString(36)}=1`).join("&"),
  },
  { label: "a long dotted name", build: (size) => `${repeatTo("a.", size)}=1` },
  { label: "a long dotted name under a field", build: (size) => `city.${repeatTo("a.", size)}=1` },
  { label: "a long name of percent escapes", build: (size) => `${repeatTo("%61", size)}=1` },
  { label: "ampersands", build: (size) => repeatTo("&", size) },
  { label: "equals signs", build: (size) => repeatTo("=", size) },
  { label: "parameters without values", build: (size) => repeatTo("city&", size) },
];

describe("a query string is bound to ListProjects' fields in time linear in its length", () => {
  it.each(QUERIES.map((query) => [query.label, query] as const))("%s", async (label, query) => {
    await expectLinearCost({
      label: `query string binding, ${label}`,
      size: SIZE,
      input: query.build,
      step: (text) => outcome(() => readListProjects(undefined, [], text)),
    });
  });
});
