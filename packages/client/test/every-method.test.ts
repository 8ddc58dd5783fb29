// Every unary method of Folio's services, found by iterating over the descriptors @folio/proto
// exports, called by its name on the client over Connect, gRPC-Web, gRPC and REST against the real
// server: a method added to the proto is called here with no edit of this test or of the client.
// The calls go through a client of `services: folioServices`, whose every method is the generic
// one (the default client's createFolder is the shorthand that returns the folder itself).
import { randomUUID } from "node:crypto";
import {
  type DescField,
  type DescMethod,
  getOption,
  type JsonValue,
  type Message,
  toJson,
} from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { FieldBehavior, field_behavior } from "@folio/googleapis";
import { declaredScopes } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFolioClient, folioServices, type Protocol } from "../src/node.js";
import { pageFields } from "../src/pages.js";
import { type FolioServer, startFolioServer } from "./folio-server.js";

const PROTOCOLS: readonly Protocol[] = ["connect", "grpc-web", "grpc", "rest"];

type Call = (request?: object) => Promise<Message>;
type Paged = (request?: object) => AsyncIterable<unknown>;

const methods = folioServices.flatMap((service) => service.methods).filter((m) => m.methodKind === "unary");

/** A request field the test must fill: one the API requires. */
function requiredFields(method: DescMethod): DescField[] {
  return method.input.fields.filter((field) =>
    getOption(field, field_behavior).includes(FieldBehavior.REQUIRED),
  );
}

/** Whether a field names another resource by its id, which the test takes from an earlier response. */
const isIdField = (field: DescField) => field.name === "id" || field.name.endsWith("_id");

/**
 * A request that the server should accept: each required field filled, an id with one an earlier
 * response held, any other text with a name of its own (each call creates something new).
 */
function sampleRequest(method: DescMethod, label: string, ids: readonly string[]): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const field of requiredFields(method)) {
    if (field.fieldKind !== "scalar")
      throw new Error(`${method.name}: fill ${field.name} (${field.fieldKind})`);
    if (isIdField(field)) {
      if (ids[0] === undefined) throw new Error(`${method.name} needs an id, and no response held one yet`);
      request[field.localName] = ids[0];
    } else {
      request[field.localName] = `${method.name} ${label} ${randomUUID().slice(0, 8)}`;
    }
  }
  return request;
}

/** Every `id` in a response, in order. */
function idsIn(json: JsonValue): string[] {
  if (Array.isArray(json)) return json.flatMap(idsIn);
  if (typeof json !== "object" || json === null) return [];
  return Object.entries(json).flatMap(([key, value]) =>
    key === "id" && typeof value === "string" ? [value] : idsIn(value),
  );
}

// Methods that take an id run after those that give one.
const ordered = [...methods].sort(
  (a, b) => Number(requiredFields(a).some(isIdField)) - Number(requiredFields(b).some(isIdField)),
);

let server: FolioServer;
let token: string;

/** A client of Folio's services with no shorthands: each method by its name is the generic one. */
function clientOf(protocol: Protocol): Record<string, Call> {
  return createFolioClient({
    baseUrl: server.baseUrl,
    token,
    protocol,
    services: folioServices,
  }) as unknown as Record<string, Call>;
}

beforeAll(async () => {
  server = await startFolioServer();
  const scopes = folioServices.flatMap((service) => declaredScopes(service).map((scope) => scope.name));
  token = await server.issuer.sign({ org_id: randomUUID(), scope: scopes.join(" ") }, {}, "1h");
});

afterAll(async () => {
  await server?.stop();
});

describe("every unary method of Folio's services, against the real server", () => {
  const idsOf = new Map<Protocol, string[]>();

  it.each(PROTOCOLS)("answers each method by its name over %s", async (protocol) => {
    expect(methods.map((m) => m.name)).toEqual(expect.arrayContaining(["CreateFolder", "ListProjects"]));
    const folio = createFolioClient({ baseUrl: server.baseUrl, token, protocol }) as unknown as Record<
      string,
      Call
    >;
    for (const method of methods) expect(folio[method.localName], method.name).toBeTypeOf("function");
    const client = clientOf(protocol);
    const ids: string[] = [];
    idsOf.set(protocol, ids);
    for (const method of ordered) {
      const call = client[method.localName];
      expect(call, `client.${method.localName}`).toBeTypeOf("function");
      const response = await call!(sampleRequest(method, protocol, ids)).catch((error: unknown) => {
        throw new Error(`${method.name} over ${protocol}: ${String(error)}`);
      });
      expect(response.$typeName, method.name).toBe(method.output.typeName);
      ids.push(...idsIn(toJson(method.output, response)));
    }
  });

  it("gives the same answer to each read on every protocol", async () => {
    const reads = methods.filter((m) => m.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS);
    expect(reads.length).toBeGreaterThan(0);
    const ids = idsOf.get("connect") ?? [];
    for (const method of reads) {
      const request = sampleRequest(method, "read", ids);
      const answers = await Promise.all(
        PROTOCOLS.map(async (protocol) => {
          return toJson(method.output, await clientOf(protocol)[method.localName]!(request));
        }),
      );
      for (const [i, answer] of answers.entries())
        expect(answer, `${method.name} over ${PROTOCOLS[i]}`).toEqual(answers[0]);
    }
  });

  it.each(PROTOCOLS)("walks every page of each paged method over %s, one item a page", async (protocol) => {
    const paged = methods.filter((m) => pageFields(m) !== undefined);
    expect(paged.map((m) => m.name)).toContain("ListProjects");
    const client = createFolioClient({ baseUrl: server.baseUrl, token, protocol, services: folioServices });
    const calls = client as unknown as Record<string, Call>;
    const iterators = client.paged as unknown as Record<string, Paged>;
    let longest = 0;
    for (const method of paged) {
      const fields = pageFields(method)!;
      const request = sampleRequest(method, "pages", idsOf.get(protocol) ?? []);
      const all = (await calls[method.localName]!(request)) as unknown as Record<string, Message[]>;
      const items: Message[] = [];
      for await (const item of iterators[method.localName]!({ ...request, pageSize: 1 }))
        items.push(item as Message);
      expect(items, method.name).toEqual(all[fields.items.localName]);
      longest = Math.max(longest, items.length);
    }
    // The folders the first test created (one a protocol) take a page each.
    expect(longest).toBeGreaterThan(1);
  });
});
