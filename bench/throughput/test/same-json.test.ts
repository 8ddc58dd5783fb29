// The baselines answer as Folio does: Folio (its build, apps/server/dist/main.js) and both baseline
// services run as the comparison runs them, on one fresh database on the PostgreSQL server of
// DATABASE_URL (default 127.0.0.1:5432), and the same requests get the same answers.
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BenchDatabase,
  createBenchDatabase,
  DEFAULT_SERVER_URL,
  seedProjects,
  serverAnswers,
} from "../src/compare/database.ts";
import { type RunningServer, SERVER_ENTRY, type ServerKind, startServer } from "../src/compare/servers.ts";
import { AUDIENCE, type BenchIssuer, createBenchIssuer, ISSUER } from "../src/compare/tokens.ts";

/** `text` with every page token (`2.` and its sealed bytes, in base64url) replaced by one mark. */
const sealed = (text: string) => text.replace(/2\.[A-Za-z0-9_-]{40,}/g, "2.<sealed>");

const SERVER_URL = process.env.DATABASE_URL ?? DEFAULT_SERVER_URL;
const unavailable = (await serverAnswers(SERVER_URL))
  ? undefined
  : `no PostgreSQL server answers at ${SERVER_URL}`;
const KINDS: readonly ServerKind[] = ["folio", "fastify", "node-http"];
const BASELINES: readonly ServerKind[] = ["fastify", "node-http"];
const USER = randomUUID();
const ORG = randomUUID();

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of several shapes, read by the tests.
  readonly json: any;
}

describe.skipIf(unavailable !== undefined)(
  `baselines answer as Folio does${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let dir: string;
    let database: BenchDatabase | undefined;
    let issuer: BenchIssuer;
    const servers = new Map<ServerKind, RunningServer>();

    const call = async (
      kind: ServerKind,
      method: string,
      path: string,
      token: string,
      body?: unknown,
    ): Promise<Reply> => {
      const response = await fetch(`${servers.get(kind)?.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
    };
    const everywhere = async (make: (kind: ServerKind) => Promise<Reply>) =>
      new Map(await Promise.all(KINDS.map(async (kind) => [kind, await make(kind)] as const)));
    const token = (claims: { org_id?: string; scope: string }) =>
      issuer.sign({ sub: USER, org_id: ORG, ...claims });

    beforeAll(async () => {
      if (!existsSync(SERVER_ENTRY.folio)) {
        throw new Error(
          `${SERVER_ENTRY.folio} is missing: pnpm exec turbo run build --filter=@folio/server...`,
        );
      }
      dir = await mkdtemp(join(tmpdir(), "folio-throughput-test-"));
      database = await createBenchDatabase(SERVER_URL, "folio_bench_test");
      await seedProjects(database.url, [
        { id: ORG, projects: 25 },
        { id: randomUUID(), projects: 25 },
      ]);
      // Two projects that sort first, so the page surely holds an absent address part (null) and
      // both forms of a timestamp (without and with milliseconds).
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        `INSERT INTO projects (org_id, name, street, created_at) VALUES
           ($1, 'Aa first', NULL, '2026-01-01T00:00:00Z'), ($1, 'Aa second', 'Main Street', '2026-01-01T00:00:00.5Z')`,
        [ORG],
      );
      await client.end();
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

    it("lists a page of 10 projects, and the next one, as the same JSON with the same Link", async () => {
      const read = await token({ scope: "project:read" });
      const first = await everywhere((kind) => call(kind, "GET", "/api/v1/projects?pageSize=10", read));
      const folio = first.get("folio") as Reply;
      expect(folio.status).toBe(200);
      expect(folio.json.projects).toHaveLength(10);
      // Absent address parts are null, not missing; timestamps with and without milliseconds.
      expect(folio.json.projects[0]).toMatchObject({
        name: "Aa first",
        street: null,
        createdAt: "2026-01-01T00:00:00Z",
      });
      expect(folio.json.projects[1]).toMatchObject({
        name: "Aa second",
        createdAt: "2026-01-01T00:00:00.500Z",
      });
      const link = folio.headers.get("link");
      expect(link).toMatch(/^<\/api\/v1\/projects\?pageSize=10&pageToken=[^>]+>; rel="next"$/);
      for (const kind of BASELINES) {
        const reply = first.get(kind) as Reply;
        expect(reply.status, kind).toBe(200);
        // Field by field (every project, ids and timestamps included: the same rows), then byte for
        // byte; page tokens are sealed with a random nonce, so equal but for them (each server reads
        // the others', below).
        expect(JSON.parse(sealed(reply.text)), kind).toEqual(JSON.parse(sealed(folio.text)));
        expect(sealed(reply.text), kind).toBe(sealed(folio.text));
        expect(sealed(reply.headers.get("link") ?? ""), kind).toBe(sealed(link ?? ""));
      }
      const next = `/api/v1/projects?${new URLSearchParams({ pageSize: "10", pageToken: /pageToken=([^>&]+)/.exec(link ?? "")?.[1] ?? "" })}`;
      const second = await everywhere((kind) => call(kind, "GET", next, read));
      expect((second.get("folio") as Reply).json.projects[0].name >= folio.json.projects[9].name).toBe(true);
      for (const kind of BASELINES)
        expect(sealed((second.get(kind) as Reply).text), kind).toBe(
          sealed((second.get("folio") as Reply).text),
        );
    });

    it("creates a folder with the same JSON, then refuses its name case-folded with the same 409", async () => {
      // One org per server, so that the same name can be created on each.
      const orgs = new Map(KINDS.map((kind) => [kind, randomUUID()]));
      const tokens = new Map(
        await Promise.all(
          KINDS.map(
            async (kind) => [kind, await token({ org_id: orgs.get(kind), scope: "files:upload" })] as const,
          ),
        ),
      );
      const created = await everywhere((kind) =>
        call(kind, "POST", "/api/v1/folders", tokens.get(kind) as string, {
          name: "  Cafe\u0301 Straße ",
          color: "#1E9",
        }),
      );
      const folio = created.get("folio") as Reply;
      expect(folio.status).toBe(201);
      expect(folio.json.folder).toMatchObject({
        name: "Café Straße",
        color: "#11ee99",
        parentId: null,
        visibility: "private",
      });
      const comparable = (reply: Reply, kind: ServerKind) => {
        const { id, orgId, createdAt, ...rest } = reply.json.folder;
        expect(id, kind).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(orgId, kind).toBe(orgs.get(kind));
        expect(createdAt, kind).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
        return { keys: Object.keys(reply.json.folder), rest };
      };
      for (const kind of BASELINES) {
        const reply = created.get(kind) as Reply;
        expect(reply.status, kind).toBe(201);
        expect(comparable(reply, kind), kind).toEqual(comparable(folio, "folio"));
      }

      const clash = await everywhere((kind) =>
        call(kind, "POST", "/api/v1/folders", tokens.get(kind) as string, { name: "CAFÉ STRASSE" }),
      );
      for (const kind of KINDS) {
        const reply = clash.get(kind) as Reply;
        expect(reply.status, kind).toBe(409);
        expect(reply.json, kind).toEqual({
          error: {
            code: "already_exists",
            message: 'a folder named "CAFÉ STRASSE" already exists in this parent',
            requestId: reply.headers.get("x-request-id"),
            details: [
              {
                type: "google.rpc.ErrorInfo",
                reason: "FOLDER_NAME_TAKEN",
                domain: "folio.v1",
                metadata: { folderId: (created.get(kind) as Reply).json.folder.id },
              },
            ],
          },
        });
      }
    });

    it("refuses a token without the operation's scope with the same 403", async () => {
      const readOnly = await token({ scope: "project:read" });
      const uploadOnly = await token({ scope: "files:upload" });
      for (const [method, path, scopeToken, body] of [
        ["POST", "/api/v1/folders", readOnly, { name: "Contracts" }],
        ["GET", "/api/v1/projects", uploadOnly, undefined],
      ] as const) {
        const replies = await everywhere((kind) => call(kind, method, path, scopeToken, body));
        const folio = replies.get("folio") as Reply;
        expect(folio.status).toBe(403);
        expect(folio.json.error.code).toBe("permission_denied");
        for (const kind of BASELINES) {
          const reply = replies.get(kind) as Reply;
          expect(reply.status, kind).toBe(403);
          expect({ ...reply.json.error, requestId: "" }, kind).toEqual({
            ...folio.json.error,
            requestId: "",
          });
          expect(reply.headers.get("www-authenticate"), kind).toBe(folio.headers.get("www-authenticate"));
        }
      }
    });
  },
);
