// The Go peer (bench/throughput/go: grpc-go, and grpc-gateway in front of it) answers as Folio and
// the Node peers do. It is built from Debian's packages here (src/go-peer/build.ts), so these
// tests are skipped, saying what to install, where Go or those packages are missing; the database
// tests also need PostgreSQL at DATABASE_URL (default 127.0.0.1:5432) and Folio's build.
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { StatusSchema } from "@folio/googleapis";
import {
  CreateFolderRequestSchema,
  ListProjectsRequestSchema,
  ListProjectsResponseSchema,
} from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../src/baseline/api-error.ts";
import { validateFolder } from "../src/baseline/folder-rules.ts";
import {
  type BenchDatabase,
  createBenchDatabase,
  DEFAULT_SERVER_URL,
  seedProjects,
  serverAnswers,
} from "../src/compare/database.ts";
import { type GrpcReply, grpcUnary } from "../src/compare/grpc-unary.ts";
import { comparableRestBody } from "../src/compare/rest-body.ts";
import { type RunningServer, SERVER_ENTRY, type ServerKind, startServer } from "../src/compare/servers.ts";
import { AUDIENCE, type BenchIssuer, createBenchIssuer, ISSUER } from "../src/compare/tokens.ts";
import { buildGoPeer, goPeerUnavailable } from "../src/go-peer/build.ts";

const noGo = goPeerUnavailable();
const SERVER_URL = process.env.DATABASE_URL ?? DEFAULT_SERVER_URL;
const noDatabase =
  noGo !== undefined || (await serverAnswers(SERVER_URL))
    ? undefined
    : `no PostgreSQL server answers at ${SERVER_URL}`;
const skipped = (reason: string | undefined) => (reason === undefined ? "" : ` (skipped: ${reason})`);
const LIST = "/folio.v1.ProjectService/ListProjects";
const CREATE = "/folio.v1.FolderService/CreateFolder";
/** `text` with every page token (`2.` and its sealed bytes, in base64url) replaced by one mark. */
const sealed = (text: string) => text.replace(/2\.[A-Za-z0-9_-]{40,}/g, "2.<sealed>");
const BUILD_TIMEOUT = 300_000;

describe.skipIf(noGo !== undefined)(`the Go peer${skipped(noGo)}`, () => {
  let binary: string;
  beforeAll(() => {
    binary = buildGoPeer();
  }, BUILD_TIMEOUT);

  it("applies the Node peers' folder-name rules: the same stored names, keys and refusals", () => {
    const names = [
      ...["Contracts", "  Straße  ", "STRASSE", "Cafe\u0301", "ΌΣΟΣ", "İstanbul", "ﬃ", "👩\u200D💻 Dev"],
      ...["a\u200Db", "👍🏽\u200D👍", "\u200D👍", "bad\u202Ename", "x\uFFFEy", "tab\there", "a/b", "a\\b"],
      ...[".", "..", " .. ", "", "   ", "\uFEFFx\u0085", "x\u2028", "é".repeat(255), "é".repeat(256)],
    ];
    const run = spawnSync(binary, ["folder-rules"], {
      input: names.map((name) => JSON.stringify(name)).join("\n"),
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    const answers = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    for (const [i, name] of names.entries()) {
      let expected: Record<string, string>;
      try {
        const folder = validateFolder(
          { name, parentId: undefined, color: undefined, requestId: undefined },
          undefined,
        );
        expected = { name: folder.name, nameKey: folder.nameKey };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        expected = { error: error.message };
      }
      expect(answers[i], JSON.stringify(name)).toEqual(expected);
    }
  });

  describe.skipIf(noDatabase !== undefined)(`on a database, beside Folio${skipped(noDatabase)}`, () => {
    const KINDS = [
      "folio",
      "fastify",
      "grpc-js",
      "go-grpc",
      "go-gateway",
    ] as const satisfies readonly ServerKind[];
    const ORG = randomUUID();
    let dir: string;
    let database: BenchDatabase | undefined;
    let issuer: BenchIssuer;
    const servers = new Map<ServerKind, RunningServer>();
    const url = (kind: ServerKind) => servers.get(kind)?.url as string;
    const USER = randomUUID();
    const token = (claims: { org_id?: string; scope: string }) =>
      issuer.sign({ sub: USER, org_id: ORG, ...claims });
    const rest = async (kind: ServerKind, method: string, path: string, bearer?: string, body?: unknown) => {
      const response = await fetch(`${url(kind)}${path}`, {
        method,
        headers: {
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
    };
    const listRequest = (pageSize: number, pageToken = "") =>
      toBinary(ListProjectsRequestSchema, create(ListProjectsRequestSchema, { pageSize, pageToken }));
    const page = (reply: GrpcReply) =>
      fromBinary(ListProjectsResponseSchema, reply.messages[0] as Uint8Array);
    const tokenOf = (link: string | null) =>
      decodeURIComponent(/pageToken=([^>&]+)/.exec(link ?? "")?.[1] ?? "");

    beforeAll(async () => {
      if (!existsSync(SERVER_ENTRY.folio)) {
        throw new Error(
          `${SERVER_ENTRY.folio} is missing: pnpm exec turbo run build --filter=@folio/server...`,
        );
      }
      dir = await mkdtemp(join(tmpdir(), "folio-throughput-go-test-"));
      database = await createBenchDatabase(SERVER_URL, "folio_bench_go_test");
      await seedProjects(database.url, [
        { id: ORG, projects: 25 },
        { id: randomUUID(), projects: 25 },
      ]);
      issuer = await createBenchIssuer(dir);
      const setup = {
        databaseUrl: database.url,
        jwksFile: issuer.jwksFile,
        issuer: ISSUER,
        audience: AUDIENCE,
        pageTokenSecret: randomBytes(32).toString("base64url"),
        poolSize: 2,
        dir,
        readyToken: await token({ scope: "project:read" }),
      };
      const started = await Promise.allSettled(KINDS.map((kind) => startServer(kind, setup)));
      for (const [i, result] of started.entries()) {
        if (result.status === "fulfilled") servers.set(KINDS[i] as ServerKind, result.value);
      }
      const failed = started.find((result) => result.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    }, BUILD_TIMEOUT);

    afterAll(async () => {
      await Promise.all([...servers.values()].map((server) => server.stop()));
      await database?.drop();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("lists the same REST pages as Folio with the same Link, and reads the Node peers' page tokens as they read its", async () => {
      const read = await token({ scope: "project:read" });
      const list = (kind: ServerKind) => rest(kind, "GET", "/api/v1/projects?pageSize=10", read);
      const [folio, fastify, gateway] = await Promise.all([
        list("folio"),
        list("fastify"),
        list("go-gateway"),
      ]);
      expect(gateway.status).toBe(200);
      expect(gateway.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(sealed(gateway.headers.get("link") ?? "")).toBe(sealed(folio.headers.get("link") ?? ""));
      expect(sealed(comparableRestBody("go-gateway", gateway.text))).toBe(sealed(folio.text));
      // Each server's next page with its own token, Go's token on Fastify and Fastify's on the
      // gateway: the same page.
      const next = (link: string | null) => `/api/v1/projects?pageSize=10&pageToken=${tokenOf(link)}`;
      const second = [
        await rest("folio", "GET", next(folio.headers.get("link")), read),
        await rest("go-gateway", "GET", next(gateway.headers.get("link")), read),
        await rest("fastify", "GET", next(gateway.headers.get("link")), read),
        await rest("go-gateway", "GET", next(fastify.headers.get("link")), read),
      ];
      for (const reply of second) expect(reply.status, reply.text).toBe(200);
      const [a, b, c, d] = second.map((reply) =>
        sealed(
          comparableRestBody(
            reply.json.nextPageToken === undefined ? "folio-rest" : "go-gateway",
            reply.text,
          ),
        ),
      );
      expect([b, c, d]).toEqual([a, a, a]);
    });

    it("lists the same gRPC message as Folio's gRPC, and reads grpc-js's page tokens as grpc-js reads its", async () => {
      const auth = {
        authorization: `Bearer ${await token({ scope: "project:read" })}`,
        "x-request-id": "trace-go",
      };
      const call = async (kind: ServerKind, pageToken = "") => {
        const reply = await grpcUnary(url(kind), LIST, auth, listRequest(10, pageToken));
        expect(reply.grpcStatus, `${kind}: ${reply.grpcMessage}`).toBe("0");
        return { reply, page: page(reply) };
      };
      const [folio, peer, go] = await Promise.all([call("folio"), call("grpc-js"), call("go-grpc")]);
      expect(go.reply.metadata["x-request-id"]).toBe("trace-go");
      const unsealed = (p: typeof go.page) => ({ ...p, nextPageToken: "" });
      expect(equals(ListProjectsResponseSchema, unsealed(go.page), unsealed(folio.page))).toBe(true);
      const second = [
        await call("folio", folio.page.nextPageToken),
        await call("go-grpc", go.page.nextPageToken),
        await call("grpc-js", go.page.nextPageToken),
        await call("go-grpc", peer.page.nextPageToken),
      ];
      expect(second[0]?.page.projects).toHaveLength(10);
      for (const { page: p } of second.slice(1)) {
        expect(equals(ListProjectsResponseSchema, unsealed(p), unsealed(second[0]?.page as typeof p))).toBe(
          true,
        );
      }
    });

    it("creates a folder over REST with 201 and Folio's fields, then refuses its name case-folded with Folio's 409", async () => {
      const orgs = { folio: randomUUID(), gateway: randomUUID() };
      const upload = {
        folio: await token({ org_id: orgs.folio, scope: "files:upload" }),
        gateway: await token({ org_id: orgs.gateway, scope: "files:upload" }),
      };
      const body = { name: "  Cafe\u0301 Straße ", color: "#1E9" };
      const folio = await rest("folio", "POST", "/api/v1/folders", upload.folio, body);
      const gateway = await rest("go-gateway", "POST", "/api/v1/folders", upload.gateway, body);
      expect(gateway.status, gateway.text).toBe(201);
      const { id, orgId, createdAt, ...fields } = gateway.json.folder;
      expect(orgId).toBe(orgs.gateway);
      expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
      // grpc-gateway leaves an absent field out where Folio writes null.
      const { id: _id, orgId: _org, createdAt: _at, parentId, ...folioFields } = folio.json.folder;
      expect(parentId).toBeNull();
      expect(fields).toEqual(folioFields);
      const clash = {
        folio: await rest("folio", "POST", "/api/v1/folders", upload.folio, { name: "CAFÉ STRASSE" }),
        gateway: await rest("go-gateway", "POST", "/api/v1/folders", upload.gateway, {
          name: "CAFÉ STRASSE",
        }),
      };
      expect(clash.gateway.status).toBe(409);
      expect(clash.gateway.json.error.requestId).toBe(clash.gateway.headers.get("x-request-id"));
      const details = clash.gateway.json.error.details;
      expect(details[0].metadata.folderId).toBe(id);
      details[0].metadata.folderId = folio.json.folder.id;
      expect({ ...clash.gateway.json.error, requestId: "" }).toEqual({
        ...clash.folio.json.error,
        requestId: "",
      });
    });

    it("refuses a missing token and a missing scope over REST with Folio's status, envelope and challenge", async () => {
      const readOnly = await token({ scope: "project:read" });
      for (const [method, path, bearer, body] of [
        ["POST", "/api/v1/folders", readOnly, { name: "Contracts" }],
        ["GET", "/api/v1/projects", undefined, undefined],
        ["GET", "/api/v1/projects?pageSize=-1", readOnly, undefined],
      ] as const) {
        const [folio, gateway] = await Promise.all(
          ["folio", "go-gateway"].map((k) => rest(k as ServerKind, method, path, bearer, body)),
        );
        expect(gateway?.status, path).toBe(folio?.status);
        expect({ ...gateway?.json.error, requestId: "" }, path).toEqual({
          ...folio?.json.error,
          requestId: "",
        });
        expect(gateway?.headers.get("www-authenticate"), path).toBe(folio?.headers.get("www-authenticate"));
      }
    });

    it("refuses bad gRPC calls with Folio's status, message, details and challenge", async () => {
      const upload = { authorization: `Bearer ${await token({ scope: "files:upload" })}` };
      const readOnly = { authorization: `Bearer ${await token({ scope: "project:read" })}` };
      const emptyName = toBinary(CreateFolderRequestSchema, create(CreateFolderRequestSchema, { name: " " }));
      for (const [what, path, message, headers, code] of [
        ["an empty name", CREATE, emptyName, upload, "3"],
        ["no files:upload scope", CREATE, emptyName, readOnly, "7"],
        ["no token", LIST, listRequest(10), {}, "16"],
        ["a negative page size", LIST, listRequest(-1), readOnly, "3"],
        [
          "a page token of another org",
          LIST,
          listRequest(10, "2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
          readOnly,
          "3",
        ],
      ] as const) {
        const [folio, go] = (await Promise.all(
          ["folio", "go-grpc"].map((k) => grpcUnary(url(k as ServerKind), path, headers, message)),
        )) as [GrpcReply, GrpcReply];
        expect(go.grpcStatus, what).toBe(code);
        expect(folio.grpcStatus, what).toBe(code);
        expect(go.grpcMessage, what).toBe(folio.grpcMessage);
        expect(go.metadata["www-authenticate"], what).toBe(folio.metadata["www-authenticate"]);
        const [a, b] = [folio, go].map((r) =>
          r.statusDetails === undefined ? undefined : fromBinary(StatusSchema, r.statusDetails),
        );
        expect(b === undefined, what).toBe(a === undefined);
        if (a !== undefined && b !== undefined) expect(equals(StatusSchema, a, b), what).toBe(true);
      }
      // A message that does not parse: INVALID_ARGUMENT as Folio answers it (grpc-go would say
      // INTERNAL); the wording is each protobuf library's own.
      const truncated = await grpcUnary(url("go-grpc"), LIST, readOnly, Uint8Array.of(0x12, 0x05, 0x61));
      expect(truncated.grpcStatus).toBe("3");
      expect(truncated.grpcMessage).toMatch(/^parse binary: /);
    });
  });
});
