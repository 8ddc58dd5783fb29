// The grpc-js service answers as Folio's gRPC does: Folio (its build, apps/server/dist/main.js) and
// src/grpc-js-service.ts run as the comparison runs them, on one fresh database on the PostgreSQL
// server of DATABASE_URL (default 127.0.0.1:5432), and the same calls get the same messages,
// statuses and details, decoded from protobuf.
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ErrorInfoSchema, StatusSchema } from "@folio/googleapis";
import {
  CreateFolderRequestSchema,
  CreateFolderResponseSchema,
  ListProjectsRequestSchema,
  ListProjectsResponseSchema,
} from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BenchDatabase,
  createBenchDatabase,
  DEFAULT_SERVER_URL,
  seedProjects,
  serverAnswers,
} from "../src/compare/database.ts";
import { type GrpcReply, grpcUnary } from "../src/compare/grpc-unary.ts";
import { type RunningServer, SERVER_ENTRY, type ServerKind, startServer } from "../src/compare/servers.ts";
import { AUDIENCE, type BenchIssuer, createBenchIssuer, ISSUER } from "../src/compare/tokens.ts";

const SERVER_URL = process.env.DATABASE_URL ?? DEFAULT_SERVER_URL;
const unavailable = (await serverAnswers(SERVER_URL))
  ? undefined
  : `no PostgreSQL server answers at ${SERVER_URL}`;
const KINDS = ["folio", "grpc-js"] as const satisfies readonly ServerKind[];
const USER = randomUUID();
const ORG = randomUUID();
const LIST = "/folio.v1.ProjectService/ListProjects";
const CREATE = "/folio.v1.FolderService/CreateFolder";

describe.skipIf(unavailable !== undefined)(
  `the grpc-js service answers as Folio's gRPC does${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let dir: string;
    let database: BenchDatabase | undefined;
    let issuer: BenchIssuer;
    const servers = new Map<ServerKind, RunningServer>();

    const token = (claims: { org_id?: string; scope: string }) =>
      issuer.sign({ sub: USER, org_id: ORG, ...claims });
    /** The same call on both servers. */
    const both = async (path: string, message: Uint8Array, headers: Record<string, string>) => {
      const [folio, peer] = await Promise.all(
        KINDS.map((kind) => grpcUnary(servers.get(kind)?.url as string, path, headers, message)),
      );
      return { folio: folio as GrpcReply, peer: peer as GrpcReply };
    };
    const status = (reply: GrpcReply) =>
      reply.statusDetails === undefined ? undefined : fromBinary(StatusSchema, reply.statusDetails);
    const listRequest = (pageSize: number, pageToken = "") =>
      toBinary(ListProjectsRequestSchema, create(ListProjectsRequestSchema, { pageSize, pageToken }));

    beforeAll(async () => {
      if (!existsSync(SERVER_ENTRY.folio)) {
        throw new Error(
          `${SERVER_ENTRY.folio} is missing: pnpm exec turbo run build --filter=@folio/server...`,
        );
      }
      dir = await mkdtemp(join(tmpdir(), "folio-throughput-grpc-test-"));
      database = await createBenchDatabase(SERVER_URL, "folio_bench_grpc_test");
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
    });

    afterAll(async () => {
      await Promise.all([...servers.values()].map((server) => server.stop()));
      await database?.drop();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("lists a page of 10 projects, and the next one, as the same message, with the caller's request id", async () => {
      const auth = {
        authorization: `Bearer ${await token({ scope: "project:read" })}`,
        "x-request-id": "trace-1",
      };
      const first = await both(LIST, listRequest(10), auth);
      for (const reply of [first.folio, first.peer]) {
        expect(reply.grpcStatus).toBe("0");
        expect(reply.metadata["x-request-id"]).toBe("trace-1");
        expect(reply.messages).toHaveLength(1);
      }
      const folio = fromBinary(ListProjectsResponseSchema, first.folio.messages[0] as Uint8Array);
      const peer = fromBinary(ListProjectsResponseSchema, first.peer.messages[0] as Uint8Array);
      expect(folio.projects).toHaveLength(10);
      expect(folio.nextPageToken).not.toBe("");
      expect(peer.nextPageToken).not.toBe("");
      // Page tokens are sealed with a random nonce: equal but for them (each reads the other's, below).
      const sealed = (response: typeof folio) => ({ ...response, nextPageToken: "" });
      expect(equals(ListProjectsResponseSchema, sealed(peer), sealed(folio))).toBe(true);
      // The same bytes, too: the same encoder on both sides.
      expect(Buffer.from(toBinary(ListProjectsResponseSchema, sealed(peer)))).toEqual(
        Buffer.from(toBinary(ListProjectsResponseSchema, sealed(folio))),
      );

      const second = await both(LIST, listRequest(10, folio.nextPageToken), auth);
      const next = fromBinary(ListProjectsResponseSchema, second.folio.messages[0] as Uint8Array);
      expect((next.projects[0]?.name ?? "") >= (folio.projects[9]?.name ?? "")).toBe(true);
      expect(
        equals(
          ListProjectsResponseSchema,
          sealed(fromBinary(ListProjectsResponseSchema, second.peer.messages[0] as Uint8Array)),
          sealed(next),
        ),
      ).toBe(true);
    });

    it("creates a folder with the same fields, then refuses its name case-folded with the same status and details", async () => {
      // One org per server, so that the same name can be created on each.
      const orgs = { folio: randomUUID(), peer: randomUUID() };
      const auth = {
        folio: { authorization: `Bearer ${await token({ org_id: orgs.folio, scope: "files:upload" })}` },
        peer: { authorization: `Bearer ${await token({ org_id: orgs.peer, scope: "files:upload" })}` },
      };
      const call = (kind: "folio" | "peer", name: string, color?: string) =>
        grpcUnary(
          servers.get(kind === "folio" ? "folio" : "grpc-js")?.url as string,
          CREATE,
          auth[kind],
          toBinary(CreateFolderRequestSchema, create(CreateFolderRequestSchema, { name, color })),
        );
      const created = {
        folio: await call("folio", "  Cafe\u0301 Straße ", "#1E9"),
        peer: await call("peer", "  Cafe\u0301 Straße ", "#1E9"),
      };
      const folders = {
        folio: fromBinary(CreateFolderResponseSchema, created.folio.messages[0] as Uint8Array).folder,
        peer: fromBinary(CreateFolderResponseSchema, created.peer.messages[0] as Uint8Array).folder,
      };
      expect(created.folio.grpcStatus).toBe("0");
      expect(created.peer.grpcStatus).toBe("0");
      expect(folders.folio).toMatchObject({
        name: "Café Straße",
        color: "#11ee99",
        visibility: "private",
        orgId: orgs.folio,
      });
      expect(folders.folio?.parentId).toBeUndefined();
      const comparable = (folder: typeof folders.folio) => {
        const { id: _id, orgId: _org, createdAt: _at, ...rest } = folder ?? {};
        return rest;
      };
      expect(comparable(folders.peer)).toEqual(comparable(folders.folio));
      expect(folders.peer?.orgId).toBe(orgs.peer);

      const clash = { folio: await call("folio", "CAFÉ STRASSE"), peer: await call("peer", "CAFÉ STRASSE") };
      for (const kind of ["folio", "peer"] as const) {
        const reply = clash[kind];
        expect(reply.grpcStatus, kind).toBe("6");
        expect(reply.grpcMessage, kind).toBe('a folder named "CAFÉ STRASSE" already exists in this parent');
        const detail = status(reply)?.details[0];
        expect(detail?.typeUrl, kind).toBe("type.googleapis.com/google.rpc.ErrorInfo");
        expect(fromBinary(ErrorInfoSchema, detail?.value ?? new Uint8Array()), kind).toMatchObject({
          reason: "FOLDER_NAME_TAKEN",
          domain: "folio.v1",
          metadata: { folderId: folders[kind]?.id },
        });
      }
    });

    it("refuses an invalid name, a missing scope, a missing token and an unreadable message alike", async () => {
      const upload = { authorization: `Bearer ${await token({ scope: "files:upload" })}` };
      const readOnly = { authorization: `Bearer ${await token({ scope: "project:read" })}` };
      const emptyName = toBinary(CreateFolderRequestSchema, create(CreateFolderRequestSchema, { name: " " }));
      for (const [what, path, message, headers, code] of [
        ["an empty name", CREATE, emptyName, upload, "3"],
        ["no files:upload scope", CREATE, emptyName, readOnly, "7"],
        ["no token", LIST, listRequest(10), {}, "16"],
        ["a negative page size", LIST, listRequest(-1), readOnly, "3"],
        ["a truncated message", LIST, Uint8Array.of(0x12, 0x05, 0x61), readOnly, "3"],
      ] as const) {
        const { folio, peer } = await both(path, message, headers);
        expect(folio.grpcStatus, what).toBe(code);
        expect(peer.grpcStatus, what).toBe(code);
        expect(peer.grpcMessage, what).toBe(folio.grpcMessage);
        expect(peer.metadata["www-authenticate"], what).toBe(folio.metadata["www-authenticate"]);
        const [a, b] = [status(folio), status(peer)];
        expect(b === undefined, what).toBe(a === undefined);
        if (a !== undefined && b !== undefined) expect(equals(StatusSchema, a, b), what).toBe(true);
      }
    });
  },
);
