// Hostile or malformed input is the client's fault on every protocol: a 4xx in the error envelope
// (REST) or the matching code (Connect, gRPC, gRPC-Web), never 500, and nothing is written.
import { randomUUID } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFolder, listProjects, VIAS } from "./api.js";
import { startTestServer, type TestServer } from "./harness.js";
import { RAW_PROTOCOLS, rawCall } from "./raw-rpc.js";
import { folderCount, newCaller } from "./workspace.js";

const CREATE_FOLDER = "/folio.v1.FolderService/CreateFolder";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** A binary CreateFolderRequest with `name` as raw bytes (field 1, length-delimited). */
function nameMessage(name: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x0a, name.length]), name]);
}

/** An HTTP/1.1 exchange on a raw socket, for requests `fetch` refuses to send. */
async function rawExchange(request: string): Promise<{ status: number; body: string }> {
  const socket = net.connect(Number(new URL(server.baseUrl).port), "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8");
  });
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(request);
  await new Promise((resolve) => socket.once("close", resolve));
  const [head = "", body = ""] = received.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body };
}

describe.each(VIAS)("ListProjects filters over %s", (via) => {
  it.each(["namePrefix", "city", "country", "postalCode"])(
    "refuses a NUL in %s, naming the field",
    async (field) => {
      const { token } = await newCaller(server);
      const outcome = await listProjects(server, via, { [field]: "a\0b" }, { token });
      expect(outcome.code).toBe("invalid_argument");
      if (via === "rest") expect(outcome.status).toBe(400);
      expect(outcome.fieldViolations).toEqual([field]);
    },
  );
});

describe.each(VIAS)("folder names over %s", (via) => {
  it.each([
    ["a right-to-left override", "invoice\u202Efdp.exe"],
    ["a left-to-right isolate", "a\u2066b\u2069"],
    ["a right-to-left mark", "a\u200Fb"],
    ["a zero-width space", "Re\u200Bport"],
    ["a zero-width non-joiner", "Re\u200Cport"],
    ["a zero-width joiner between letters", "Re\u200Dport"],
    ["a word joiner", "Re\u2060port"],
    ["a byte-order mark inside", "Re\uFEFFport"],
    ["the noncharacter U+FFFE", "Report\uFFFE"],
    ["the noncharacter U+FFFF", "Report\uFFFF"],
    ["the noncharacter U+FDD0", "Report\uFDD0"],
    ["a plane-1 noncharacter", "Report\u{1FFFE}"],
    ["nothing but invisible characters", "\u200B\u200D\u2060"],
  ])("refuses a name with %s, writing nothing", async (_case, name) => {
    const { orgId, token } = await newCaller(server);
    const outcome = await createFolder(server, via, { name }, { token });
    expect(outcome.code).toBe("invalid_argument");
    if (via === "rest") expect(outcome.status).toBe(400);
    expect(outcome.fieldViolations).toEqual(["name"]);
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it("keeps two siblings that differ only by invisible characters from both existing", async () => {
    const { orgId, token } = await newCaller(server);
    expect((await createFolder(server, via, { name: "Report" }, { token })).code).toBe("ok");
    for (const lookalike of ["Re\u200Bport", "Report\u200D", "\u2066Report\u2069", "Report\uFFFF"]) {
      expect((await createFolder(server, via, { name: lookalike }, { token })).code).toBe("invalid_argument");
    }
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("accepts emoji sequences joined by zero-width joiners", async () => {
    const { token } = await newCaller(server);
    const outcome = await createFolder(server, via, { name: "👩🏽\u200D💻 Team ❤\uFE0F\u200D🔥" }, { token });
    expect(outcome.code).toBe("ok");
  });
});

describe("request bodies over Connect, gRPC and gRPC-Web", () => {
  it.each(RAW_PROTOCOLS)("refuses a truncated binary message over %s, writing nothing", async (protocol) => {
    const { orgId, token } = await newCaller(server);
    // Announces a 20-byte name, ends after 3.
    const truncated = Buffer.from([0x0a, 20, 0x61, 0x62, 0x63]);
    const outcome = await rawCall(server.baseUrl, protocol, CREATE_FOLDER, truncated, { token });
    expect(outcome.code).toBe("invalid_argument");
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it.each(RAW_PROTOCOLS)("refuses a name that is not UTF-8 over %s, writing nothing", async (protocol) => {
    const { orgId, token } = await newCaller(server);
    const outcome = await rawCall(
      server.baseUrl,
      protocol,
      CREATE_FOLDER,
      nameMessage(Buffer.from([0x61, 0xff, 0x62])),
      { token },
    );
    expect(outcome.code).toBe("invalid_argument");
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it.each(RAW_PROTOCOLS)("accepts fields it does not know over %s, of every wire type", async (protocol) => {
    const { orgId, token } = await newCaller(server);
    // A newer client's message: fields 100 to 104 are not CreateFolderRequest's, a group among them.
    const message = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string("Newer client")
      .tag(100, WireType.Varint)
      .uint32(7)
      .tag(101, WireType.Bit64)
      .fixed64(1n)
      .tag(102, WireType.LengthDelimited)
      .string("x")
      .tag(103, WireType.StartGroup)
      .tag(1, WireType.Varint)
      .uint32(1)
      .tag(103, WireType.EndGroup)
      .tag(104, WireType.Bit32)
      .fixed32(1)
      .finish();
    const outcome = await rawCall(server.baseUrl, protocol, CREATE_FOLDER, message, { token });
    expect(outcome.code).toBe("ok");
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("refuses JSON that is not UTF-8 over Connect, writing nothing", async () => {
    const { orgId, token } = await newCaller(server);
    const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff]), Buffer.from('b"}')]);
    const outcome = await rawCall(server.baseUrl, "connect", CREATE_FOLDER, body, { token, json: true });
    expect(outcome.code).toBe("invalid_argument");
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it.each([
    ["orgId", { name: "Mine", orgId: randomUUID() }],
    ["visibility", { name: "Mine", visibility: "public" }],
  ])("refuses the unknown JSON field %s over Connect, writing nothing", async (_field, request) => {
    const { orgId, token } = await newCaller(server);
    const body = Buffer.from(JSON.stringify(request));
    const outcome = await rawCall(server.baseUrl, "connect", CREATE_FOLDER, body, { token, json: true });
    expect(outcome.code).toBe("invalid_argument");
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it("refuses a gzip body that does not inflate over Connect", async () => {
    const { token } = await newCaller(server);
    const notGzip = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]);
    const outcome = await rawCall(server.baseUrl, "connect", CREATE_FOLDER, notGzip, { token, gzip: true });
    expect(outcome.code).toBe("invalid_argument");
  });
});

describe("REST request bodies", () => {
  it("refuses JSON that is not UTF-8 and unknown fields, writing nothing", async () => {
    const { orgId, token } = await newCaller(server);
    for (const body of [
      Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff]), Buffer.from('b"}')]),
      Buffer.from(JSON.stringify({ name: "Mine", orgId: randomUUID() })),
    ]) {
      const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_argument");
    }
    expect(await folderCount(server, orgId)).toBe(0);
  });
});

describe("request targets under /api/", () => {
  it("serves a path with doubled leading slashes as the REST route", async () => {
    const { orgId, token } = await newCaller(server);
    const response = await fetch(`${server.baseUrl}//api/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Slashes" }),
    });
    expect(response.status).toBe(201);
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("answers an unknown path under //api/ with the envelope", async () => {
    const response = await fetch(`${server.baseUrl}//api/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("serves an absolute-form request target (RFC 9112, section 3.2.2)", async () => {
    const { orgId, token } = await newCaller(server);
    const { port } = new URL(server.baseUrl);
    const body = JSON.stringify({ name: "Absolute" });
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: `http://127.0.0.1:${port}/api/v1/folders`,
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on("error", reject);
      request.end(body);
    });
    expect(status).toBe(201);
    expect(await folderCount(server, orgId)).toBe(1);
  });
});

describe("requests Node's HTTP parser refuses", () => {
  it("answers a NUL in a header with a 400 envelope, writing nothing", async () => {
    const { orgId, token } = await newCaller(server);
    const body = JSON.stringify({ name: "Nul" });
    const { status, body: answer } = await rawExchange(
      [
        "POST /api/v1/folders HTTP/1.1",
        "Host: localhost",
        `Authorization: Bearer ${token}`,
        "Content-Type: application/json",
        "X-Note: a\0b",
        `Content-Length: ${body.length}`,
        "",
        body,
      ].join("\r\n"),
    );
    expect(status).toBe(400);
    expect(JSON.parse(answer)).toMatchObject({ error: { code: "invalid_argument", details: [] } });
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it("answers headers too large with a 431 envelope", async () => {
    const { status, body } = await rawExchange(
      `GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(status).toBe(431);
    expect(JSON.parse(body)).toMatchObject({ error: { code: "resource_exhausted" } });
  });
});
