// The in-process unary path (transport/unary) against connect-es's handlers: the same requests to
// a server with it and to one without it (RPC_IN_PROCESS_UNARY=off), on the same data, get the
// same answers on the wire (status, headers but the date, body, trailers) and the same code in
// the access log.
import { randomUUID } from "node:crypto";
import http from "node:http";
import http2 from "node:http2";
import { gzipSync } from "node:zlib";
import { create, type DescMessage, type MessageInitShape, toBinary, toJsonString } from "@bufbuild/protobuf";
import { CreateFolderRequestSchema, ListProjectsRequestSchema } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

const ORG = "7b0c3a4e-1d2f-4a5b-8c6d-0e1f2a3b4c5d";
const BIG_ORG = "8c1d4b5f-2e3a-4b6c-9d7e-1f2a3b4c5d6e";
const TAKEN_FOLDER = "9d2e5c6a-3f4b-4c7d-8e8f-2a3b4c5d6e7f";
const USER = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const MAX_BODY = 4096;

interface Side {
  readonly server: TestServer;
  readonly lines: Record<string, unknown>[];
}
let fast: Side;
let slow: Side;

async function startSide(env: Record<string, string>): Promise<Side> {
  const lines: Record<string, unknown>[] = [];
  const server = await startTestServer(
    { MAX_REQUEST_BODY_BYTES: String(MAX_BODY), PAGE_TOKEN_SECRET: "a".repeat(40), ...env },
    { log: (line) => lines.push(line) },
  );
  // The same rows, ids and times on both servers, so that their answers can be compared.
  await server.sql(
    `insert into projects (id, org_id, name, city, country, postal_code, created_at)
       select ('00000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, $1,
              'Project ' || lpad(n::text, 3, '0') || repeat(' with a long name', $3::int),
              'City ' || n, 'Country', '1000', timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
       from generate_series(1, $2::int) as n`,
    [ORG, 3, 0],
  );
  await server.sql(
    `insert into projects (id, org_id, name, city, country, postal_code, created_at)
       select ('00000000-0000-4000-9000-' || lpad(n::text, 12, '0'))::uuid, $1,
              'Project ' || lpad(n::text, 3, '0') || repeat(' with a long name', 4),
              'City ' || n, 'Country', '1000', timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
       from generate_series(1, 40) as n`,
    [BIG_ORG],
  );
  await server.sql(
    `insert into folders (id, org_id, name, name_key, created_by_user_id, created_at)
       values ($1, $2, 'Taken', 'taken', $3, timestamptz '2026-01-01T00:00:00Z')`,
    [TAKEN_FOLDER, ORG, USER],
  );
  return { server, lines };
}

beforeAll(async () => {
  [fast, slow] = await Promise.all([startSide({}), startSide({ RPC_IN_PROCESS_UNARY: "off" })]);
});
afterAll(async () => {
  await Promise.all([fast?.server.close(), slow?.server.close()]);
});

/** How a request goes: protocol, codec and HTTP version. */
interface Wire {
  readonly name: string;
  readonly protocol: "connect" | "grpc" | "grpc-web";
  readonly json: boolean;
  readonly http2: boolean;
}
const WIRES: Wire[] = [
  { name: "connect+proto over HTTP/1.1", protocol: "connect", json: false, http2: false },
  { name: "connect+json over HTTP/1.1", protocol: "connect", json: true, http2: false },
  { name: "connect+proto over HTTP/2", protocol: "connect", json: false, http2: true },
  { name: "grpc over HTTP/2", protocol: "grpc", json: false, http2: true },
  { name: "grpc+json over HTTP/2", protocol: "grpc", json: true, http2: true },
  { name: "grpc-web over HTTP/1.1", protocol: "grpc-web", json: false, http2: false },
  { name: "grpc-web over HTTP/2", protocol: "grpc-web", json: false, http2: true },
];

/** One request of the matrix, for a wire. */
interface Case {
  readonly name: string;
  readonly path: string;
  /** The token's claims; undefined: no token. */
  readonly claims?: Record<string, unknown>;
  /** The request message, or the raw body bytes (before framing). */
  readonly message?: { schema: DescMessage; init: MessageInitShape<DescMessage> };
  readonly raw?: Uint8Array;
  /** Compress the request message with gzip. */
  readonly gzip?: boolean;
  /** Extra request headers, by protocol family. */
  readonly headers?: (wire: Wire) => Record<string, string>;
  /** Frame the body as is (no envelope): a malformed gRPC body. */
  readonly unframed?: boolean;
  /** The message's `name` gets the wire's name appended: one folder per wire. */
  readonly uniqueName?: boolean;
  /** The body differs per call (generated ids, times): compare all but its bytes. */
  readonly bodyVaries?: boolean;
}

const LIST = "/folio.v1.ProjectService/ListProjects";
const CREATE = "/folio.v1.FolderService/CreateFolder";
const read = { org_id: ORG, scope: "project:read" };
const upload = { org_id: ORG, sub: USER, scope: "files:upload" };
const list = (init: MessageInitShape<typeof ListProjectsRequestSchema>) => ({
  schema: ListProjectsRequestSchema,
  init,
});
const createFolder = (init: MessageInitShape<typeof CreateFolderRequestSchema>) => ({
  schema: CreateFolderRequestSchema,
  init,
});
const acceptGzip = (wire: Wire): Record<string, string> =>
  wire.protocol === "connect" ? { "accept-encoding": "gzip" } : { "grpc-accept-encoding": "gzip" };
const timeout =
  (value: string, connectValue: string) =>
  (wire: Wire): Record<string, string> =>
    wire.protocol === "connect" ? { "connect-timeout-ms": connectValue } : { "grpc-timeout": value };

const CASES: Case[] = [
  { name: "a listing", path: LIST, claims: read, message: list({ pageSize: 50 }) },
  {
    name: "a large listing, compressed for a client that accepts gzip",
    path: LIST,
    claims: { ...read, org_id: BIG_ORG },
    message: list({ pageSize: 50 }),
    headers: acceptGzip,
  },
  {
    name: "a small listing for a client that accepts gzip",
    path: LIST,
    claims: read,
    message: list({ pageSize: 50 }),
    headers: acceptGzip,
  },
  {
    name: "a compressed request",
    path: LIST,
    claims: read,
    message: list({ pageSize: 2 }),
    gzip: true,
    // Its next page token is sealed with a random nonce.
    bodyVaries: true,
  },
  {
    name: "a filtered listing",
    path: LIST,
    claims: read,
    message: list({ namePrefix: "Project 00", city: "City 2" }),
  },
  {
    name: "a folder created",
    path: CREATE,
    claims: upload,
    message: createFolder({ name: "New" }),
    uniqueName: true,
    bodyVaries: true,
  },
  { name: "a validation error (details)", path: CREATE, claims: upload, message: createFolder({ name: "" }) },
  {
    name: "an invalid colour and an invalid Idempotency-Key",
    path: CREATE,
    claims: upload,
    message: createFolder({ name: "Colours", color: "red" }),
    headers: () => ({ "idempotency-key": "has spaces" }),
  },
  {
    name: "a name taken (ErrorInfo)",
    path: CREATE,
    claims: upload,
    message: createFolder({ name: "Taken" }),
  },
  {
    name: "a parent that does not exist",
    path: CREATE,
    claims: upload,
    message: createFolder({ name: "Child", parentId: "00000000-0000-4000-8000-ffffffffffff" }),
  },
  { name: "no token", path: LIST, message: list({}) },
  {
    name: "a token without the scope",
    path: CREATE,
    claims: read,
    message: createFolder({ name: "No scope" }),
  },
  { name: "no such method", path: "/folio.v1.ProjectService/Nope", claims: read, message: list({}) },
  {
    name: "a payload that does not decode",
    path: LIST,
    claims: read,
    raw: Uint8Array.of(0xff, 0xff, 0xff, 0x01),
  },
  {
    name: "a message over the limit",
    path: LIST,
    claims: read,
    message: list({ namePrefix: "x".repeat(MAX_BODY + 10) }),
  },
  {
    name: "a gzip bomb",
    path: LIST,
    claims: read,
    message: list({ namePrefix: "x".repeat(MAX_BODY * 4) }),
    gzip: true,
  },
  {
    name: "a deadline passed already",
    path: LIST,
    claims: read,
    message: list({}),
    headers: timeout("0m", "0"),
  },
  {
    name: "a deadline far ahead",
    path: LIST,
    claims: read,
    message: list({}),
    headers: timeout("10S", "10000"),
  },
  {
    name: "a malformed timeout",
    path: LIST,
    claims: read,
    message: list({}),
    headers: timeout("soon", "soon"),
  },
  {
    name: "an unknown request coding",
    path: LIST,
    claims: read,
    message: list({}),
    headers: (wire): Record<string, string> =>
      wire.protocol === "connect" ? { "content-encoding": "snappy" } : { "grpc-encoding": "snappy" },
  },
  { name: "an empty body", path: LIST, claims: read, raw: new Uint8Array(0), unframed: true },
  {
    name: "a truncated envelope",
    path: LIST,
    claims: read,
    raw: Uint8Array.of(0, 0, 0, 0, 9, 1),
    unframed: true,
  },
  {
    name: "metadata the call does not read",
    path: LIST,
    claims: read,
    message: list({}),
    headers: () => ({ "x-custom": "value", "x-custom-bin": "AAEC" }),
  },
];

/** What came back, as compared: the status, headers but the date, the body and the trailers. */
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  trailers: Record<string, unknown>;
}

const IGNORED_HEADERS = new Set(["date"]);

function normalized(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!IGNORED_HEADERS.has(name) && !name.startsWith(":")) out[name] = value;
  }
  return out;
}

function envelope(flags: number, data: Uint8Array): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(flags, 0);
  prefix.writeUInt32BE(data.byteLength, 1);
  return Buffer.concat([prefix, data]);
}

function bodyOf(wire: Wire, c: Case): Buffer {
  let data: Uint8Array;
  if (c.raw !== undefined) data = c.raw;
  else if (c.message === undefined) data = new Uint8Array(0);
  else {
    const init =
      c.uniqueName === true
        ? { ...c.message.init, name: `${c.message.init.name} ${WIRES.indexOf(wire)}` }
        : c.message.init;
    const message = create(c.message.schema, init);
    data = wire.json
      ? new TextEncoder().encode(toJsonString(c.message.schema, message))
      : toBinary(c.message.schema, message);
  }
  if (c.gzip === true) data = gzipSync(data);
  if (wire.protocol === "connect" || c.unframed === true) return Buffer.from(data);
  return envelope(c.gzip === true ? 1 : 0, data);
}

function headersOf(
  wire: Wire,
  c: Case,
  token: string | undefined,
  requestId: string,
): Record<string, string> {
  const headers: Record<string, string> = { "x-request-id": requestId };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  switch (wire.protocol) {
    case "connect":
      headers["content-type"] = wire.json ? "application/json" : "application/proto";
      headers["connect-protocol-version"] = "1";
      if (c.gzip === true) headers["content-encoding"] = "gzip";
      break;
    case "grpc":
      headers["content-type"] = wire.json ? "application/grpc+json" : "application/grpc";
      headers.te = "trailers";
      if (c.gzip === true) headers["grpc-encoding"] = "gzip";
      break;
    case "grpc-web":
      headers["content-type"] = "application/grpc-web+proto";
      headers["x-grpc-web"] = "1";
      if (c.gzip === true) headers["grpc-encoding"] = "gzip";
      break;
  }
  return { ...headers, ...c.headers?.(wire) };
}

function send1(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${path}`, { method: "POST", headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: normalized(response.headers),
          body: Buffer.concat(chunks).toString("hex"),
          trailers: normalized(response.trailers),
        }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

function send2(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<Answer> {
  const session = http2.connect(baseUrl);
  return new Promise<Answer>((resolve, reject) => {
    session.once("error", reject);
    const stream = session.request({ ":method": "POST", ":path": path, ...headers });
    let status = 0;
    let responseHeaders: Record<string, unknown> = {};
    let trailers: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      responseHeaders = normalized(h);
    });
    stream.on("trailers", (t) => {
      trailers = normalized(t);
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () =>
      resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString("hex"), trailers }),
    );
    stream.end(body);
  }).finally(() => session.destroy());
}

async function answerOf(side: Side, wire: Wire, c: Case, requestId: string) {
  // A token of its own for each request (its jti), as an issuer's tokens are: a token's rate limit
  // counts its claims, and two signed alike within a second would be one token.
  const token =
    c.claims === undefined ? undefined : await side.server.issuer.sign({ ...c.claims, jti: randomUUID() });
  const headers = headersOf(wire, c, token, requestId);
  const body = bodyOf(wire, c);
  const send = wire.http2 ? send2 : send1;
  const answer = await send(side.server.baseUrl, c.path, headers, body);
  await expect
    .poll(() => side.lines.filter((l) => l.requestId === requestId).length, { timeout: 10_000 })
    .toBe(1);
  const line = side.lines.find((l) => l.requestId === requestId) as Record<string, unknown>;
  // A failed gRPC call is Trailers-Only in-process (one HEADERS frame), headers then trailers
  // from connect-es: compared as the metadata the client reads, the two together.
  if (wire.protocol === "grpc" && answer.body === "") {
    answer.headers = { ...answer.headers, ...answer.trailers };
    answer.trailers = {};
  }
  if (c.bodyVaries === true) answer.body = "varies";
  // So does its length (a timestamp's nanoseconds are a varint).
  if (c.bodyVaries === true && answer.headers["content-length"] !== undefined)
    answer.headers["content-length"] = "n";
  return { answer, log: { code: line.code, method: line.method, protocol: line.protocol } };
}

let sequence = 0;

describe("a failed gRPC call", () => {
  it("is answered Trailers-Only: its status and metadata in the one HEADERS frame, no body, no trailers", async () => {
    const wire = WIRES.find((w) => w.protocol === "grpc" && !w.json) as Wire;
    const c = CASES.find((k) => k.claims === undefined) as Case;
    const answer = await send2(
      fast.server.baseUrl,
      c.path,
      headersOf(wire, c, undefined, "trailers-only"),
      bodyOf(wire, c),
    );
    expect(answer).toMatchObject({ status: 200, body: "", trailers: {} });
    expect(answer.headers).toMatchObject({
      "content-type": "application/grpc+proto",
      "grpc-status": "16",
      "x-request-id": "trailers-only",
    });
  });
});

describe.each(WIRES)("over $name", (wire) => {
  it.each(CASES)("answers $name as connect-es's handler does", async (c) => {
    if (c.unframed === true && wire.protocol === "connect") return;
    if (wire.json && c.raw !== undefined) return;
    const requestId = `unary-${wire.protocol}-${++sequence}`;
    const expected = await answerOf(slow, wire, c, requestId);
    const actual = await answerOf(fast, wire, c, requestId);
    expect(actual).toEqual(expected);
  });
});
