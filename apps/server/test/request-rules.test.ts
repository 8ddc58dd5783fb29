// The rules of each request, declared in the proto with buf.validate (and the few the service keeps),
// as a client of each protocol meets them: invalid_argument with a google.rpc.BadRequest naming
// every field at fault by its JSON name, with a sentence for each; and only after authentication,
// scope and rate limit. Nothing is written for a refused request.
import { fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { BadRequestSchema, codeToString } from "@folio/googleapis";
import {
  CreateFolderRequestSchema,
  FolderService,
  ListProjectsRequestSchema,
  ProjectService,
} from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOLS, startTestServer, type TestServer } from "./harness.js";
import { folderCount, newCaller } from "./workspace.js";

/** REST and the three RPC protocols. */
const ALL = ["rest", ...PROTOCOLS] as const;
type Protocol = (typeof ALL)[number];

/** What a client learns of a refusal. */
interface Answer {
  readonly code: string;
  /** The HTTP status of a REST answer. */
  readonly status?: number;
  readonly violations: readonly { field: string; description: string }[];
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function headersOf(token: string | null, extra: Record<string, string>): Record<string, string> {
  return { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...extra };
}

async function restAnswer(response: Response): Promise<Answer> {
  const body = (await response.json()) as JsonObject;
  if (response.ok) return { code: "ok", status: response.status, violations: [] };
  const error = body.error as { code: string; details: { type: string; [key: string]: JsonValue }[] };
  const badRequest = error.details.find((detail) => detail.type === "google.rpc.BadRequest");
  const violations = (badRequest?.fieldViolations ?? []) as { field: string; description: string }[];
  return {
    code: error.code,
    status: response.status,
    violations: violations.map(({ field, description }) => ({ field, description })),
  };
}

async function rpcAnswer(call: () => Promise<unknown>): Promise<Answer> {
  try {
    await call();
    return { code: "ok", violations: [] };
  } catch (thrown) {
    const error = ConnectError.from(thrown);
    const badRequest = error.findDetails(BadRequestSchema)[0];
    return {
      code: codeToString(error.code),
      violations: (badRequest?.fieldViolations ?? []).map(({ field, description }) => ({
        field,
        description,
      })),
    };
  }
}

/** CreateFolder over `protocol`, the request given as its JSON. */
async function createFolder(
  protocol: Protocol,
  request: JsonObject,
  token: string | null,
  headers: Record<string, string> = {},
): Promise<Answer> {
  if (protocol === "rest") {
    const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: { ...headersOf(token, headers), "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    return restAnswer(response);
  }
  const client = createClient(FolderService, server.transport(protocol));
  return rpcAnswer(() =>
    client.createFolder(fromJson(CreateFolderRequestSchema, request), { headers: headersOf(token, headers) }),
  );
}

/** ListProjects over `protocol`, the request given as its JSON (REST: as query parameters). */
async function listProjects(
  protocol: Protocol,
  request: Record<string, string | number>,
  token: string | null,
) {
  if (protocol === "rest") {
    const query = new URLSearchParams(
      Object.entries(request).map(([k, v]): [string, string] => [k, String(v)]),
    );
    return restAnswer(
      await fetch(`${server.baseUrl}/api/v1/projects?${query}`, { headers: headersOf(token, {}) }),
    );
  }
  const client = createClient(ProjectService, server.transport(protocol));
  return rpcAnswer(() =>
    client.listProjects(fromJson(ListProjectsRequestSchema, request), { headers: headersOf(token, {}) }),
  );
}

const KEY_RULE = "must be 1 to 255 visible ASCII characters";

describe.each(ALL)("CreateFolder's rules over %s", (protocol) => {
  it.each<[string, JsonObject, Record<string, string>, string, string]>([
    ["an empty name", { name: "" }, {}, "name", "must not be empty"],
    ["a name of white space only", { name: " \t\u3000\n" }, {}, "name", "must not be empty"],
    ["a name with a slash", { name: "a/b" }, {}, "name", 'must not contain "/" or "\\"'],
    ["a name with a backslash", { name: "a\\b" }, {}, "name", 'must not contain "/" or "\\"'],
    ["the name .", { name: "." }, {}, "name", 'must not be "." or ".."'],
    ["the name .. in white space", { name: " .. " }, {}, "name", 'must not be "." or ".."'],
    ["a name with a C0 control", { name: "bell\u0007" }, {}, "name", "must not contain control characters"],
    [
      "a name with a C1 control",
      { name: "next\u0085line" },
      {},
      "name",
      "must not contain control characters",
    ],
    ["a name with a tab inside", { name: "a\tb" }, {}, "name", "must not contain control characters"],
    ["a name of 256 characters", { name: "x".repeat(256) }, {}, "name", "must be at most 255 characters"],
    [
      "a name with a zero-width space",
      { name: "Re\u200Bport" },
      {},
      "name",
      "must not contain invisible characters, bidirectional controls or noncharacters (U+200B)",
    ],
    ["a parent that is no UUID", { name: "A", parentId: "nope" }, {}, "parentId", "must be a UUID"],
    ["an empty parent", { name: "A", parentId: "" }, {}, "parentId", "must be a UUID"],
    ["the colour red", { name: "A", color: "red" }, {}, "color", "must be #rgb or #rrggbb"],
    ["the colour #1234", { name: "A", color: "#1234" }, {}, "color", "must be #rgb or #rrggbb"],
    ["an empty request id", { name: "A", requestId: "" }, {}, "requestId", KEY_RULE],
    ["a request id with a space", { name: "A", requestId: "a b" }, {}, "requestId", KEY_RULE],
    ["a request id of 256 characters", { name: "A", requestId: "k".repeat(256) }, {}, "requestId", KEY_RULE],
    ["a request id not ASCII", { name: "A", requestId: "schlüssel" }, {}, "requestId", KEY_RULE],
    [
      "an Idempotency-Key of 256 characters",
      { name: "A" },
      { "idempotency-key": "k".repeat(256) },
      "Idempotency-Key",
      KEY_RULE,
    ],
    [
      "a request id that differs from the header",
      { name: "A", requestId: "one" },
      { "idempotency-key": "two" },
      "requestId",
      "differs from the Idempotency-Key header",
    ],
  ])(
    "refuses %s: invalid_argument naming the field, nothing written",
    async (_, request, headers, field, description) => {
      const { orgId, token } = await newCaller(server);
      const answer = await createFolder(protocol, request, token, headers);
      expect(answer).toEqual({
        code: "invalid_argument",
        ...(protocol === "rest" ? { status: 400 } : {}),
        violations: [{ field, description }],
      });
      expect(await folderCount(server, orgId)).toBe(0);
    },
  );

  it("lists every field at fault: three bad fields are three violations, in the order of the fields", async () => {
    const { orgId, token } = await newCaller(server);
    const answer = await createFolder(protocol, { color: "blue", parentId: "nope", name: ".." }, token);
    expect(answer.code).toBe("invalid_argument");
    expect(answer.violations).toEqual([
      { field: "name", description: 'must not be "." or ".."' },
      { field: "parentId", description: "must be a UUID" },
      { field: "color", description: "must be #rgb or #rrggbb" },
    ]);
    const all = await createFolder(
      protocol,
      { name: "x".repeat(300), parentId: "1", color: "#12", requestId: "a key" },
      token,
      { "idempotency-key": "another key" },
    );
    expect(all.violations).toEqual([
      { field: "name", description: "must be at most 255 characters" },
      { field: "parentId", description: "must be a UUID" },
      { field: "color", description: "must be #rgb or #rrggbb" },
      { field: "requestId", description: KEY_RULE },
      { field: "requestId", description: "differs from the Idempotency-Key header" },
      { field: "Idempotency-Key", description: KEY_RULE },
    ]);
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it("judges the name trimmed and in NFC: what the rules see as sent refuses nothing valid", async () => {
    const { token } = await newCaller(server);
    for (const name of [
      // White space around the name may be long, and of control characters.
      `${" ".repeat(300)}\t Padded \n\r${"\u3000".repeat(300)}`,
      // 255 characters in NFC, 510 as sent in NFD.
      "e\u0301".repeat(255),
      // 255 characters, 510 UTF-16 units.
      "\u{1d11e}".repeat(255),
      // Dots and slashes-like characters that are neither.
      "...",
      "a\u2215b",
      "\uFEFF.x",
    ]) {
      expect((await createFolder(protocol, { name }, token)).code, JSON.stringify(name)).toBe("ok");
    }
  });

  it("checks authentication, then scope, then the request: 401 and 403 whatever the body", async () => {
    const bad = { name: "..", parentId: "nope", color: "blue" };
    const unauthenticated = await createFolder(protocol, bad, null);
    expect(unauthenticated.code).toBe("unauthenticated");
    if (protocol === "rest") expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.violations).toEqual([]);
    const { token } = await newCaller(server, "project:read");
    const forbidden = await createFolder(protocol, bad, token);
    expect(forbidden.code).toBe("permission_denied");
    if (protocol === "rest") expect(forbidden.status).toBe(403);
    expect(forbidden.violations).toEqual([]);
  });
});

describe.each(ALL)("ListProjects's rules over %s", (protocol) => {
  it.each<[string, Record<string, string | number>, string, string]>([
    ["a negative page size", { pageSize: -1 }, "pageSize", "must not be negative"],
    [
      "a NUL in namePrefix",
      { namePrefix: "a\0" },
      "namePrefix",
      "must not contain the NUL character (U+0000)",
    ],
    ["a NUL in city", { city: "\0" }, "city", "must not contain the NUL character (U+0000)"],
    ["a NUL in country", { country: "D\0E" }, "country", "must not contain the NUL character (U+0000)"],
    [
      "a NUL in postalCode",
      { postalCode: "1\0" },
      "postalCode",
      "must not contain the NUL character (U+0000)",
    ],
    [
      "a page token with a character no token has",
      { pageToken: "1.abc def" },
      "pageToken",
      "is not a token of this listing (malformed, altered, or issued for another organisation or filter)",
    ],
  ])("refuses %s: invalid_argument naming the field", async (_, request, field, description) => {
    const { token } = await newCaller(server);
    expect(await listProjects(protocol, request, token)).toEqual({
      code: "invalid_argument",
      ...(protocol === "rest" ? { status: 400 } : {}),
      violations: [{ field, description }],
    });
  });

  it("lists three bad fields as three violations, in the order of the fields", async () => {
    const { token } = await newCaller(server);
    const answer = await listProjects(protocol, { city: "\0", pageToken: "%%", pageSize: -5 }, token);
    expect(answer.violations.map((violation) => violation.field)).toEqual(["pageSize", "pageToken", "city"]);
  });

  it("checks authentication and scope before the request", async () => {
    const bad = { pageSize: -1, city: "\0" };
    expect((await listProjects(protocol, bad, null)).code).toBe("unauthenticated");
    const { token } = await newCaller(server, "files:upload");
    const forbidden = await listProjects(protocol, bad, token);
    expect(forbidden.code).toBe("permission_denied");
    if (protocol === "rest") expect(forbidden.status).toBe(403);
  });
});
