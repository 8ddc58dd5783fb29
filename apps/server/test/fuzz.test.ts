// Seeded, time-bounded fuzzing of the REST and Connect surfaces of a real server: bodies, queries,
// paths and headers. Whatever arrives, the answer is a success or a 4xx (in the error envelope
// under /api/), never a 5xx; the server stays up; and every folder a success reports is stored,
// once. FUZZ_SEED replays a run; a failure prints the seed that found it.
import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { CreateFolderRequestSchema, CreateFolderResponseSchema } from "@folio/proto";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 20_000);

let server: TestServer;
let orgId: string;
let token: string;
beforeAll(async () => {
  // Rate limits would turn most of the run into 429s, which say nothing about the code behind.
  server = await startTestServer({ RATE_LIMIT_ORG_REQUESTS: "0", RATE_LIMIT_TOKEN_REQUESTS: "0" });
  orgId = randomUUID();
  token = await server.issuer.sign({ org_id: orgId }, {}, "1h");
});
afterAll(async () => {
  await server?.close();
});

/** One request as the fuzzer builds it. */
interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | undefined;
}

const text = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9 ._-]{1,24}$/) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\0",
      "Re\u200Bport",
      "\u202Eabc",
      "..",
      "a/b",
      "\uFFFF",
      "😀\u200D🔥",
    ),
  },
);

/** `arbitrary` one time in `inN`, absent otherwise. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, inN: number) =>
  fc.oneof({ weight: inN - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** CreateFolder fields: valid-looking values mostly, fuzzed text for some. */
const createFolderFields = fc.record({
  name: text,
  parentId: sometimes(fc.oneof(fc.uuid(), text), 8),
  color: sometimes(fc.oneof(fc.constantFrom("#abc", "#A1B2C3"), text), 3),
  requestId: sometimes(fc.oneof(fc.uuid(), text), 4),
});

/** CreateFolder JSON: its fields, now and then a field no client may set, or any JSON at all. */
const createFolderJson = fc.oneof(
  { weight: 6, arbitrary: createFolderFields.map((fields) => JSON.stringify(fields)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        createFolderFields,
        fc.record({ orgId: fc.uuid(), visibility: fc.constantFrom("public", "private") }),
      )
      .map(([fields, extra]) => JSON.stringify({ ...fields, ...extra })),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
);

/** ListProjects JSON (Connect): the filters, or any JSON. */
const listProjectsJson = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          namePrefix: text,
          city: text,
          country: text,
          postalCode: text,
          pageSize: fc.integer({ min: -5, max: 5000 }),
          pageToken: text,
        },
        { requiredKeys: [] },
      )
      .map((fields) => JSON.stringify(fields)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
);

/** A binary CreateFolderRequest: encoded from fuzzed fields, cut short, or random bytes. */
const createFolderBinary = fc.oneof(
  {
    weight: 4,
    arbitrary: createFolderFields.map((fields) =>
      toBinary(CreateFolderRequestSchema, create(CreateFolderRequestSchema, fields)),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(createFolderFields, fc.nat()).map(([fields, cut]) => {
      const bytes = toBinary(CreateFolderRequestSchema, create(CreateFolderRequestSchema, fields));
      return bytes.subarray(0, cut % Math.max(1, bytes.length));
    }),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
);

const queryValue = fc.oneof(text, fc.integer({ min: -5, max: 5000 }).map(String));
const query = fc.oneof(
  fc
    .dictionary(
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom("namePrefix", "city", "country", "postalCode", "pageSize", "pageToken"),
        },
        { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
      ),
      queryValue,
      { maxKeys: 4 },
    )
    .map((params) => new URLSearchParams(params).toString()),
  // Encodings URLSearchParams never writes: invalid percent escapes, NUL, bytes that are not UTF-8.
  fc
    .array(fc.constantFrom("%00", "%FF", "%", "%zz", "&", "=", "a", "+", "namePrefix=", "city=", "%C3%A9"), {
      maxLength: 8,
    })
    .map((parts) => parts.join("")),
);

const utf8 = (json: string) => new TextEncoder().encode(json);
const json = { authorization: "valid", "content-type": "application/json" };
const connectJson = { ...json, "connect-protocol-version": "1" };

/** Requests as clients of each surface send them, with fuzzed contents. */
const wellFormed: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.record({
    method: fc.constant("POST"),
    path: fc.constantFrom("/api/v1/folders", "/api/v1/folders", "/api/v1/folders", "//api/v1/folders"),
    query: fc.constant(""),
    headers: fc.constant(json),
    body: createFolderJson.map(utf8),
  }),
  fc.record({
    method: fc.constant("GET"),
    path: fc.constant("/api/v1/projects"),
    query,
    headers: fc.constant({ authorization: "valid" }),
    body: fc.constant(undefined),
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/folio.v1.FolderService/CreateFolder"),
    query: fc.constant(""),
    headers: fc.constant(connectJson),
    body: createFolderJson.map(utf8),
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/folio.v1.FolderService/CreateFolder"),
    query: fc.constant(""),
    headers: fc.constant({ ...connectJson, "content-type": "application/proto" }),
    body: createFolderBinary,
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/folio.v1.ProjectService/ListProjects"),
    query: fc.constant(""),
    headers: fc.constant(connectJson),
    body: listProjectsJson.map(utf8),
  }),
);

const headerValue = fc.string({ unit: "binary-ascii", maxLength: 30 }).map((value) =>
  // Values fetch can send at all: visible ASCII and spaces, no leading or trailing space.
  value.replace(/[^\x20-\x7e]/g, "").trim(),
);

/** Changes no well-behaved client makes: another method, path, content type, headers, token. */
const mutation: fc.Arbitrary<(req: FuzzRequest) => FuzzRequest> = fc.oneof(
  fc
    .constantFrom("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "POST")
    .map((method) => (req: FuzzRequest) => ({ ...req, method })),
  fc
    .oneof(
      fc.webSegment().map((segment) => `/api/v1/folders/${segment}`),
      fc.webPath(),
      fc.constantFrom("/api", "/api/", "/api/v1", "/folio.v1.FolderService/", "/folio.v1.Nope/CreateFolder"),
    )
    .map((path) => (req: FuzzRequest) => ({ ...req, path })),
  fc
    .constantFrom(
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "application/proto",
      "application/grpc-web+proto",
      "application/connect+json",
      "text/plain",
    )
    .map((contentType) => (req: FuzzRequest) => ({
      ...req,
      headers: { ...req.headers, "content-type": contentType },
    })),
  fc
    .record(
      {
        "idempotency-key": headerValue,
        "x-request-id": headerValue,
        "connect-timeout-ms": fc.oneof(fc.nat(100_000).map(String), headerValue),
        "content-encoding": fc.constantFrom("identity", "gzip", "br", "deflate", "x-unknown"),
        "accept-encoding": fc.constantFrom("gzip", "br", "identity"),
        "connect-protocol-version": fc.constantFrom("1", "2"),
      },
      { requiredKeys: [] },
    )
    .map((extra) => (req: FuzzRequest) => ({ ...req, headers: { ...req.headers, ...extra } })),
  headerValue.map((value) => (req: FuzzRequest) => ({
    ...req,
    headers: { ...req.headers, authorization: `Bearer ${value}` },
  })),
);

const request: fc.Arbitrary<FuzzRequest> = fc
  .tuple(wellFormed, fc.array(mutation, { maxLength: 2 }), fc.nat(9))
  // Seven in ten requests go out as built; the others get one or two changes.
  .map(([req, changes, dice]) => (dice < 7 ? req : changes.reduce((r, change) => change(r), req)));

/** Ids of the folders the server reported created. */
const created = new Set<string>();

/** A gRPC-Web body: its message, and the status of its trailers. */
function readGrpcWeb(bytes: Buffer): { message: Uint8Array | undefined; status: number } {
  let message: Uint8Array | undefined;
  let status = 0;
  for (let offset = 0; offset + 5 <= bytes.length; ) {
    const length = bytes.readUInt32BE(offset + 1);
    const frame = bytes.subarray(offset + 5, offset + 5 + length);
    if (bytes.readUInt8(offset) & 0x80) {
      status = Number(/grpc-status:\s*(\d+)/i.exec(frame.toString())?.[1] ?? 0);
    } else {
      message = frame;
    }
    offset += 5 + length;
  }
  return { message, status };
}

/** gRPC codes no client can cause: unknown, internal, data loss. */
const SERVER_FAULTS = new Set([2, 13, 15]);

async function send(req: FuzzRequest): Promise<void> {
  const headers = { ...req.headers };
  if (headers.authorization === "valid") headers.authorization = `Bearer ${token}`;
  const body = req.method === "GET" ? undefined : req.body;
  const response = await fetch(`${server.baseUrl}${req.path}${req.query === "" ? "" : `?${req.query}`}`, {
    method: req.method,
    headers,
    // A copy on an ArrayBuffer of its own: fetch's types take no view of a shared buffer.
    ...(body === undefined ? {} : { body: new Uint8Array(body) }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const contentType = response.headers.get("content-type") ?? "";
  const where = `${req.method} ${req.path} -> ${response.status} ${contentType} ${bytes.toString().slice(0, 300)}`;
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString());
  } catch {
    json = undefined;
  }
  // The 5xx statuses a client may cause: an unsupported compression is 501 `unimplemented`, as
  // the Connect protocol and gRPC's compression spec require; a deadline the client set (a
  // connect-timeout-ms as short as 0) that passes is 504 `deadline_exceeded`.
  const code = (json as { code?: string } | undefined)?.code;
  const unsupportedCompression = response.status === 501 && code === "unimplemented";
  const ownDeadline =
    response.status === 504 &&
    code === "deadline_exceeded" &&
    req.headers["connect-timeout-ms"] !== undefined;
  if (!unsupportedCompression && !ownDeadline) expect(response.status, where).toBeLessThan(500);
  if (/^\/+api\//.test(req.path) && response.status >= 400) {
    expect(json, where).toMatchObject({ error: { code: expect.any(String), requestId: expect.any(String) } });
  }

  // What a success reports created, in whichever encoding the server answered.
  let folder: { id?: string } | undefined;
  if (response.status === 201) {
    folder = (json as { folder?: { id?: string } } | undefined)?.folder;
  } else if (response.status === 200 && req.path.endsWith("/CreateFolder")) {
    if (contentType.startsWith("application/json")) {
      folder = (json as { folder?: { id?: string } } | undefined)?.folder;
    } else if (contentType.startsWith("application/proto")) {
      folder = fromBinary(CreateFolderResponseSchema, bytes).folder;
    } else if (contentType.startsWith("application/grpc-web")) {
      const { message, status } = readGrpcWeb(bytes);
      expect(SERVER_FAULTS.has(status), where).toBe(false);
      if (status === 0 && message !== undefined)
        folder = fromBinary(CreateFolderResponseSchema, message).folder;
    }
    if (folder === undefined && !contentType.startsWith("application/grpc-web")) {
      expect.fail(`a 200 without a folder: ${where}`);
    }
  }
  if (folder !== undefined) {
    expect(folder.id, where).toEqual(expect.any(String));
    created.add(folder.id as string);
  }
}

it("answers every fuzzed request with a success or a 4xx, and stores exactly what it reports", async () => {
  try {
    await fc.assert(fc.asyncProperty(request, send), {
      seed: SEED,
      numRuns: 400,
      plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)],
    });
  } catch (error) {
    process.stderr.write(`fuzz failed: replay with FUZZ_SEED=${SEED}\n`);
    throw error;
  }
  expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  const rows = await server.sql<{ id: string }>("select id from folders where org_id = $1", [orgId]);
  expect(new Set(rows.map((row) => row.id))).toEqual(created);
}, 60_000);
