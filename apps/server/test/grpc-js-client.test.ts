// Folio's port through the gRPC client internal services bring: @grpc/grpc-js, with protobuf-es
// doing the (de)serialisation of Folio's own messages.
import { randomUUID } from "node:crypto";
import {
  create,
  createRegistry,
  type DescMessage,
  fromBinary,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { BadRequestSchema, StatusSchema } from "@folio/googleapis";
import {
  CreateFolderRequestSchema,
  CreateFolderResponseSchema,
  ListProjectsRequestSchema,
  ListProjectsResponseSchema,
} from "@folio/proto";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

const lines: Record<string, unknown>[] = [];
let server: TestServer;
let client: grpc.Client;
let gzipClient: grpc.Client;
beforeAll(async () => {
  server = await startTestServer({}, { log: (line) => lines.push(line) });
  const target = new URL(server.baseUrl).host;
  client = new grpc.Client(target, grpc.credentials.createInsecure());
  // Compresses every request message with gzip, and asks for gzip answers.
  gzipClient = new grpc.Client(target, grpc.credentials.createInsecure(), {
    "grpc.default_compression_algorithm": grpc.compressionAlgorithms.gzip,
  });
});
afterAll(async () => {
  client?.close();
  gzipClient?.close();
  await server?.close();
});

/** The server's access log line of a request id, once written (after the response). */
async function logLineOf(requestId: string): Promise<Record<string, unknown>> {
  await expect.poll(() => lines.filter((l) => l.requestId === requestId).length, { timeout: 10_000 }).toBe(1);
  return lines.find((l) => l.requestId === requestId) as Record<string, unknown>;
}

/** A health Watch stream, which never ends by itself, with a request id. */
function watchHealth(requestId: string, options: grpc.CallOptions = {}, extra: Record<string, string> = {}) {
  const md = new grpc.Metadata();
  md.set("x-request-id", requestId);
  for (const [key, value] of Object.entries(extra)) md.set(key, value);
  return client.makeServerStreamRequest(
    "/grpc.health.v1.Health/Watch",
    (bytes: Buffer) => bytes,
    (bytes: Buffer) => bytes,
    Buffer.alloc(0),
    md,
    options,
  );
}

const orgId = randomUUID();
const userId = randomUUID();

/** Call metadata with a bearer token of the test org. */
async function metadata(extra: Record<string, string> = {}): Promise<grpc.Metadata> {
  const md = new grpc.Metadata();
  md.set("authorization", `Bearer ${await server.issuer.sign({ sub: userId, org_id: orgId })}`);
  for (const [key, value] of Object.entries(extra)) md.set(key, value);
  return md;
}

interface Answer<O extends DescMessage> {
  readonly error: grpc.ServiceError | null;
  readonly message: MessageShape<O> | undefined;
  readonly headers: grpc.Metadata | undefined;
}

/** A unary call of `path`, with protobuf-es messages; the call is returned before it ends. */
function unary<I extends DescMessage, O extends DescMessage>(
  via: grpc.Client,
  path: string,
  input: I,
  output: O,
  request: MessageShape<I>,
  md: grpc.Metadata,
  options: grpc.CallOptions = {},
): { call: grpc.ClientUnaryCall; answer: Promise<Answer<O>> } {
  let headers: grpc.Metadata | undefined;
  let call!: grpc.ClientUnaryCall;
  const answer = new Promise<Answer<O>>((resolve) => {
    call = via.makeUnaryRequest(
      path,
      (message: MessageShape<I>) => Buffer.from(toBinary(input, message)),
      (bytes: Buffer) => fromBinary(output, bytes),
      request,
      md,
      options,
      (error, message) => resolve({ error, message, headers }),
    );
    call.on("metadata", (received: grpc.Metadata) => {
      headers = received;
    });
  });
  return { call, answer };
}

const createFolder = (via: grpc.Client, name: string, md: grpc.Metadata, options?: grpc.CallOptions) =>
  unary(
    via,
    "/folio.v1.FolderService/CreateFolder",
    CreateFolderRequestSchema,
    CreateFolderResponseSchema,
    create(CreateFolderRequestSchema, { name }),
    md,
    options,
  );

const listProjects = (via: grpc.Client, md: grpc.Metadata) =>
  unary(
    via,
    "/folio.v1.ProjectService/ListProjects",
    ListProjectsRequestSchema,
    ListProjectsResponseSchema,
    create(ListProjectsRequestSchema, { pageSize: 1000 }),
    md,
  );

describe("a @grpc/grpc-js client", () => {
  it("creates a folder and lists projects, with the caller's request id echoed in the response metadata", async () => {
    const requestId = randomUUID();
    const { answer } = createFolder(client, "grpc-js folder", await metadata({ "x-request-id": requestId }));
    const { error, message, headers } = await answer;
    expect(error).toBeNull();
    expect(message?.folder).toMatchObject({ name: "grpc-js folder", orgId, createdByUserId: userId });
    expect(headers?.get("x-request-id")).toEqual([requestId]);

    await server.sql("insert into projects (org_id, name) values ($1, 'Gamma'), ($1, 'Alpha')", [orgId]);
    const listed = await listProjects(client, await metadata()).answer;
    expect(listed.error).toBeNull();
    expect(listed.message?.projects.map((p) => p.name)).toEqual(["Alpha", "Gamma"]);
  });

  it("sends gzip-compressed messages and reads the answers, small and large", async () => {
    const names = Array.from(
      { length: 300 },
      (_, i) => `Project ${String(i).padStart(3, "0")} ${"x".repeat(40)}`,
    );
    const gzipOrg = randomUUID();
    await server.sql("insert into projects (org_id, name) select $1, unnest($2::text[])", [gzipOrg, names]);
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${await server.issuer.sign({ sub: userId, org_id: gzipOrg })}`);
    const listed = await listProjects(gzipClient, md).answer;
    expect(listed.error).toBeNull();
    expect(listed.message?.projects.map((p) => p.name)).toEqual(names);

    const created = await createFolder(gzipClient, `compressed ${"y".repeat(100)}`, await metadata()).answer;
    expect(created.error).toBeNull();
    expect(created.message?.folder?.name).toBe(`compressed ${"y".repeat(100)}`);
  });

  it("reads an invalid request's status, message and google.rpc details from its Trailers-Only answer", async () => {
    const { error } = await createFolder(client, "", await metadata()).answer;
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const [details] = error!.metadata.get("grpc-status-details-bin") as Buffer[];
    const status = fromBinary(StatusSchema, details!);
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    const badRequest = status.details
      .map((any) => anyUnpack(any, createRegistry(BadRequestSchema)))
      .find((detail) => detail?.$typeName === "google.rpc.BadRequest") as
      | MessageShape<typeof BadRequestSchema>
      | undefined;
    expect(badRequest?.fieldViolations.map((v) => v.field)).toContain("name");
  });

  it("is refused without a token as UNAUTHENTICATED", async () => {
    const { error } = await createFolder(client, "no token", new grpc.Metadata()).answer;
    expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it("ends a call past its deadline with DEADLINE_EXCEEDED, from the server, as it logs it", async () => {
    // The deadline as grpc-js sends it (grpc-timeout) but without grpc-js's own timer, which would
    // race the server's: the status must come from the server.
    const requestId = randomUUID();
    const stream = watchHealth(requestId, {}, { "grpc-timeout": "300m" });
    const code = await new Promise<number>((resolve) => {
      stream.on("data", () => {});
      stream.on("error", (error: grpc.ServiceError) => resolve(error.code));
    });
    expect(code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(await logLineOf(requestId)).toMatchObject({ code: "deadline_exceeded" });
  });

  it("ends a call when the grpc-js deadline passes", async () => {
    const stream = watchHealth(randomUUID(), { deadline: Date.now() + 300 });
    const code = await new Promise<number>((resolve) => {
      stream.on("data", () => {});
      stream.on("error", (error: grpc.ServiceError) => resolve(error.code));
    });
    expect(code).toBe(grpc.status.DEADLINE_EXCEEDED);
  });

  it("cancels a call in flight, which the server sees, and the connection serves the next call", async () => {
    const requestId = randomUUID();
    const stream = watchHealth(requestId);
    await new Promise((resolve) => stream.once("data", resolve));
    const ended = new Promise<number>((resolve) =>
      stream.on("error", (error: grpc.ServiceError) => resolve(error.code)),
    );
    stream.cancel();
    expect(await ended).toBe(grpc.status.CANCELLED);
    expect(await logLineOf(requestId)).toMatchObject({ code: "canceled" });
    const next = await createFolder(client, "after the cancelled one", await metadata()).answer;
    expect(next.error).toBeNull();
  });
});
