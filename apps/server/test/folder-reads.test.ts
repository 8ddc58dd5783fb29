// GetFolder and ListFolders as clients see them on every protocol (REST, Connect, gRPC, gRPC-Web):
// the scope they need, what a caller of another organisation gets, the validation of ids, the
// pages of a listing and its tokens, and Connect's GET of every read on the server's one port.
import { randomUUID } from "node:crypto";
import { connect as connectHttp2 } from "node:http2";
import { fromJson, type JsonObject, toJson } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import {
  CreateFolderRequestSchema,
  CreateFolderResponseSchema,
  FolderService,
  GetFolderResponseSchema,
  ListFoldersRequestSchema,
  ListFoldersResponseSchema,
} from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiScopeNames } from "../src/services/api.js";
import { connectCall, listProjects, type Outcome, restCall } from "./api.js";
import { PROTOCOLS, type Protocol, startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** Every way the API is reached. */
const VIAS = ["rest", ...PROTOCOLS] as const;
type Via = (typeof VIAS)[number];

/** A token of a user of `orgId` with every scope of the API: it may read and create folders. */
const reader = (orgId: string, sub: string = randomUUID()) => server.issuer.sign({ sub, org_id: orgId });

const folders = (protocol: Protocol) => createClient(FolderService, server.transport(protocol));
const json = { alwaysEmitImplicit: true } as const;

function createFolder(via: Via, request: JsonObject, token: string): Promise<Outcome> {
  if (via === "rest") return restCall(server, "POST", "/api/v1/folders", { token }, request);
  return connectCall(
    (init) => folders(via).createFolder(fromJson(CreateFolderRequestSchema, request), init),
    (response) => toJson(CreateFolderResponseSchema, response, json) as JsonObject,
    { token },
  );
}

function getFolder(via: Via, id: string, token: string): Promise<Outcome> {
  if (via === "rest") return restCall(server, "GET", `/api/v1/folders/${encodeURIComponent(id)}`, { token });
  return connectCall(
    (init) => folders(via).getFolder({ id }, init),
    (response) => toJson(GetFolderResponseSchema, response, json) as JsonObject,
    { token },
  );
}

/** ListFolders; over REST the next page's token is read from the Link header, as clients do. */
async function listFolders(
  via: Via,
  query: Record<string, string | number>,
  token: string,
): Promise<Outcome & { nextPageToken: string; link: string | null }> {
  if (via === "rest") {
    const params = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const outcome = await restCall(server, "GET", `/api/v1/folders?${params}`, { token });
    const link = outcome.headers.get("link");
    const target = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    const nextPageToken =
      target === undefined ? "" : (new URL(target, server.baseUrl).searchParams.get("pageToken") ?? "");
    return { ...outcome, nextPageToken, link };
  }
  const outcome = await connectCall(
    (init) => folders(via).listFolders(fromJson(ListFoldersRequestSchema, query), init),
    (response) => toJson(ListFoldersResponseSchema, response, json) as JsonObject,
    { token },
  );
  return { ...outcome, nextPageToken: (outcome.json?.nextPageToken as string | undefined) ?? "", link: null };
}

/** The id of the folder a create or a read answered with. */
const idOf = (outcome: Outcome) => (outcome.json?.folder as { id: string } | undefined)?.id ?? "";
const idsOf = (outcome: Outcome) => ((outcome.json?.folders ?? []) as { id: string }[]).map((f) => f.id);

/** `count` folders named "F0001"... under `parentId` (null: top level), inserted as the API would store them. */
async function seedFolders(orgId: string, parentId: string | null, count: number, prefix = "F") {
  return server.sql<{ id: string }>(
    `insert into folders (org_id, parent_id, name, name_key, created_by_user_id)
       select $1, $2, $4 || lpad(n::text, 4, '0'), lower($4) || lpad(n::text, 4, '0'), gen_random_uuid()
       from generate_series(1, $3::int) n returning id`,
    [orgId, parentId, count, prefix],
  );
}

/** The ids of a parent's folders (null: top level) in the order the database sorts `(name, id)`. */
async function orderedIds(orgId: string, parentId: string | null): Promise<string[]> {
  const rows = await server.sql<{ id: string }>(
    "select id from folders where org_id = $1 and parent_id is not distinct from $2::uuid order by name, id",
    [orgId, parentId],
  );
  return rows.map((row) => row.id);
}

describe.each(VIAS)("folder reads over %s", (via) => {
  it("reads back a created folder exactly as the create answered it, for any user of the org", async () => {
    const orgId = randomUUID();
    const creator = await reader(orgId);
    const parent = await createFolder(via, { name: "Contracts" }, creator);
    const created = await createFolder(via, { name: "2026", parentId: idOf(parent), color: "#0A0" }, creator);
    expect(created.code).toBe("ok");
    const id = idOf(created);
    // Private to the organisation, not to its creator (folder.proto's `visibility`).
    for (const token of [creator, await reader(orgId)]) {
      const read = await getFolder(via, id, token);
      expect(read.code).toBe("ok");
      expect(read.json).toEqual(created.json);
    }
    // A UUID in capitals names the same folder.
    expect((await getFolder(via, id.toUpperCase(), creator)).json).toEqual(created.json);
  });

  it("answers another organisation's folder or parent exactly as one that does not exist: 404", async () => {
    const theirs = randomUUID();
    const foreignId = idOf(await createFolder(via, { name: "Theirs" }, await reader(theirs)));
    const mine = await reader(randomUUID());
    const foreign = await getFolder(via, foreignId, mine);
    const missing = await getFolder(via, randomUUID(), mine);
    expect(foreign.code).toBe("not_found");
    expect(missing.code).toBe("not_found");
    const foreignParent = await listFolders(via, { parentId: foreignId }, mine);
    const missingParent = await listFolders(via, { parentId: randomUUID() }, mine);
    expect(foreignParent.code).toBe("not_found");
    expect(missingParent.code).toBe("not_found");
    expect(errorMessage(foreign)).toBe(errorMessage(missing));
    expect(errorMessage(foreignParent)).toBe(errorMessage(missingParent));
    // Their listing does not show through either.
    expect(idsOf(await listFolders(via, {}, mine))).toEqual([]);
  });

  it("refuses a token without files:read with permission_denied", async () => {
    const orgId = randomUUID();
    const [folder] = await seedFolders(orgId, null, 1);
    // Every other scope of the API, so that files:read alone is missing.
    const scope = apiScopeNames.filter((name) => name !== "files:read").join(" ");
    const token = await server.issuer.sign({ org_id: orgId, scope });
    const got = await getFolder(via, folder?.id as string, token);
    const listed = await listFolders(via, {}, token);
    expect(got.code).toBe("permission_denied");
    expect(listed.code).toBe("permission_denied");
    if (via === "rest") {
      expect(got.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="files:read"');
    }
  });

  it("refuses ids that are not UUIDs, and a negative page size, naming the field", async () => {
    const token = await reader(randomUUID());
    const badId = await getFolder(via, "42", token);
    expect(badId.code).toBe("invalid_argument");
    expect(badId.fieldViolations).toEqual(["id"]);
    const badParent = await listFolders(via, { parentId: "not-a-uuid" }, token);
    expect(badParent.code).toBe("invalid_argument");
    expect(badParent.fieldViolations).toEqual(["parentId"]);
    const negative = await listFolders(via, { pageSize: -1 }, token);
    expect(negative.fieldViolations).toEqual(["pageSize"]);
  });

  it("walks a parent's folders page by page, each once, in name then id order, while folders are added", async () => {
    const orgId = randomUUID();
    const token = await reader(orgId);
    const [parent, sibling] = await seedFolders(orgId, null, 2, "Top");
    await seedFolders(orgId, sibling?.id as string, 5, "Elsewhere");
    await seedFolders(randomUUID(), null, 5, "Stranger");
    // Names sort by the database's collation: capitals, digits and lower case mixed.
    const before = await seedFolders(orgId, parent?.id as string, 25, "f");
    await seedFolders(orgId, parent?.id as string, 10, "B");
    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    do {
      const page = await listFolders(
        via,
        { parentId: parent?.id as string, pageSize: 10, ...(pageToken === "" ? {} : { pageToken }) },
        token,
      );
      expect(page.code).toBe("ok");
      if (via === "rest") {
        // REST keeps the single key `folders` and sends the next page's address in Link.
        expect(Object.keys(page.json ?? {})).toEqual(["folders"]);
        if (page.nextPageToken !== "") {
          expect(page.link).toMatch(
            new RegExp(
              `^</api/v1/folders\\?parentId=${parent?.id}&pageSize=10&pageToken=[0-9A-Za-z._-]+>; rel="next"$`,
            ),
          );
        }
      }
      seen.push(...idsOf(page));
      pageToken = page.nextPageToken;
      pages++;
      // Between pages, folders are added before, among and after the ones listed.
      await seedFolders(orgId, parent?.id as string, 1, `A${pages}-`);
      await seedFolders(orgId, parent?.id as string, 1, `f0${pages}-`);
      await seedFolders(orgId, parent?.id as string, 1, `z${pages}-`);
    } while (pageToken !== "" && pages < 20);
    expect(new Set(seen).size).toBe(seen.length);
    for (const { id } of before) expect(seen).toContain(id);
    const inOrder = (await orderedIds(orgId, parent?.id as string)).filter((id) => seen.includes(id));
    expect(seen).toEqual(inOrder);
    expect(pages).toBeGreaterThanOrEqual(4);
  });

  it("lists the top-level folders when no parent is given, 1000 by default and at most", async () => {
    const orgId = randomUUID();
    const token = await reader(orgId);
    const [top] = await seedFolders(orgId, null, 1001);
    await seedFolders(orgId, top?.id as string, 3, "Child");
    const first = await listFolders(via, {}, token);
    expect(idsOf(first)).toEqual((await orderedIds(orgId, null)).slice(0, 1000));
    const big = await listFolders(via, { pageSize: 5000 }, token);
    expect(idsOf(big)).toHaveLength(1000);
    const last = await listFolders(via, { pageToken: first.nextPageToken }, token);
    expect(idsOf(last)).toEqual((await orderedIds(orgId, null)).slice(1000));
    expect(last.nextPageToken).toBe("");
    expect(last.link).toBe(null);
  });

  it("refuses a page token of another listing, parent, or organisation", async () => {
    const orgId = randomUUID();
    const token = await reader(orgId);
    const [a, b] = await seedFolders(orgId, null, 2, "P");
    await seedFolders(orgId, a?.id as string, 3);
    await seedFolders(orgId, b?.id as string, 3);
    await server.sql("insert into projects (org_id, name) select $1, 'P' || n from generate_series(1, 3) n", [
      orgId,
    ]);
    const ofA = (await listFolders(via, { parentId: a?.id as string, pageSize: 1 }, token)).nextPageToken;
    const ofTop = (await listFolders(via, { pageSize: 1 }, token)).nextPageToken;
    const projectsVia = via === "rest" ? "rest" : "connect";
    const ofProjects = (await listProjects(server, projectsVia, { pageSize: 1 }, { token })).nextPageToken;
    for (const pageToken of [ofA, ofTop, ofProjects]) expect(pageToken).not.toBe("");

    expect((await listFolders(via, { parentId: a?.id as string, pageToken: ofA }, token)).code).toBe("ok");
    const refused = [
      await listFolders(via, { parentId: b?.id as string, pageToken: ofA }, token),
      await listFolders(via, { pageToken: ofA }, token),
      await listFolders(via, { parentId: a?.id as string, pageToken: ofTop }, token),
      await listFolders(via, { pageToken: ofProjects }, token),
      await listFolders(via, { parentId: a?.id as string, pageToken: ofA }, await reader(randomUUID())),
    ];
    for (const outcome of refused) {
      expect(outcome.code).toBe("invalid_argument");
      expect(outcome.fieldViolations).toEqual(["pageToken"]);
    }
    // And ListProjects refuses ListFolders' tokens.
    for (const pageToken of [ofA, ofTop]) {
      const projects = await listProjects(server, projectsVia, { pageToken }, { token });
      expect(projects.code).toBe("invalid_argument");
      expect(projects.fieldViolations).toEqual(["pageToken"]);
    }
  });
});

/** The message of an error, whichever way it came. */
function errorMessage(outcome: Outcome): string | undefined {
  return ((outcome.json?.error as JsonObject | undefined)?.message as string | undefined) ?? outcome.code;
}

describe("Connect's GET of the reads (idempotency_level NO_SIDE_EFFECTS), on the server's one port", () => {
  /** A Connect GET of `procedure` with `message` (JSON, or bytes sent as base64 with encoding=proto). */
  function connectGet(procedure: string, message: string, headers: Record<string, string> = {}) {
    const query = new URLSearchParams({ connect: "v1", encoding: "json", message });
    return fetch(`${server.baseUrl}/folio.v1.${procedure}?${query}`, { headers });
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it("serves GetFolder with REST's caching headers, and 304 for its ETag", async () => {
    const orgId = randomUUID();
    const token = await reader(orgId);
    const created = await createFolder("connect", { name: "Invoices" }, token);
    const id = idOf(created);
    const response = await connectGet("FolderService/GetFolder", JSON.stringify({ id }), bearer(token));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    // The create's answer, in Connect's JSON (absent fields left out).
    const expected = toJson(
      CreateFolderResponseSchema,
      fromJson(CreateFolderResponseSchema, created.json as JsonObject),
    );
    expect(await response.json()).toEqual(expected);
    // As REST answers a GET: for one bearer, revalidated, and tagged.
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    expect(response.headers.get("vary")).toContain("accept-encoding");
    const etag = response.headers.get("etag");
    expect(etag).toMatch(/^"[0-9A-Za-z_-]+"$/);
    const again = await connectGet("FolderService/GetFolder", JSON.stringify({ id }), {
      ...bearer(token),
      "if-none-match": etag as string,
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    // REST's GET of the same folder carries the same caching headers.
    const rest = await fetch(`${server.baseUrl}/api/v1/folders/${id}`, { headers: bearer(token) });
    expect(rest.headers.get("cache-control")).toBe("private, no-cache");
    expect(rest.headers.get("etag")).toMatch(/^"[0-9A-Za-z_-]+"$/);
  });

  it("refuses a GET without a token (401), a bad message and a bad id (400), another org's folder (404)", async () => {
    const token = await reader(randomUUID());
    const id = idOf(await createFolder("connect", { name: "Mine" }, token));
    const anonymous = await connectGet("FolderService/GetFolder", JSON.stringify({ id }));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: "unauthenticated" });
    for (const message of ['{"id":', '{"name":"x"}', '{"id":"42"}']) {
      const bad = await connectGet("FolderService/GetFolder", message, bearer(token));
      expect(bad.status, message).toBe(400);
      expect(await bad.json()).toMatchObject({ code: "invalid_argument" });
    }
    const badBase64 = await fetch(
      `${server.baseUrl}/folio.v1.FolderService/GetFolder?connect=v1&encoding=proto&base64=1&message=!!`,
      { headers: bearer(token) },
    );
    expect(badBase64.status).toBe(400);
    const foreign = await connectGet(
      "FolderService/GetFolder",
      JSON.stringify({ id }),
      bearer(await reader(randomUUID())),
    );
    expect(foreign.status).toBe(404);
  });

  it("answers over HTTP/2 too, its 304 without content", async () => {
    const token = await reader(randomUUID());
    const id = idOf(await createFolder("connect", { name: "Over h2" }, token));
    const path = `/folio.v1.FolderService/GetFolder?${new URLSearchParams({ connect: "v1", encoding: "json", message: JSON.stringify({ id }) })}`;
    const session = connectHttp2(server.baseUrl);
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; etag: string | undefined; body: string }>((resolve, reject) => {
        const stream = session.request({ ":path": path, authorization: `Bearer ${token}`, ...headers });
        let status = 0;
        let etag: string | undefined;
        let body = "";
        stream.on("response", (h) => {
          status = Number(h[":status"]);
          etag = h.etag as string | undefined;
        });
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => (body += chunk));
        stream.on("end", () => resolve({ status, etag, body }));
        stream.on("error", reject);
      });
    try {
      const first = await get({});
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body)).toMatchObject({ folder: { id, name: "Over h2" } });
      const again = await get({ "if-none-match": first.etag as string });
      expect(again).toEqual({ status: 304, etag: first.etag, body: "" });
    } finally {
      session.close();
    }
  });

  it("is served by connect-es's handler too, with the in-process path off", async () => {
    const off = await startTestServer({ RPC_IN_PROCESS_UNARY: "off" });
    try {
      const token = await off.issuer.sign();
      const made = await fetch(`${off.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Fallback" }),
      });
      const { folder } = (await made.json()) as { folder: { id: string } };
      const query = new URLSearchParams({
        connect: "v1",
        encoding: "json",
        message: JSON.stringify({ id: folder.id }),
      });
      const response = await fetch(`${off.baseUrl}/folio.v1.FolderService/GetFolder?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ folder: { id: folder.id, name: "Fallback" } });
    } finally {
      await off.close();
    }
  });

  it("serves ListProjects and ListFolders; a method with side effects is not served by GET", async () => {
    const orgId = randomUUID();
    const token = await reader(orgId);
    await server.sql("insert into projects (org_id, name) values ($1, 'Beta'), ($1, 'Alpha')", [orgId]);
    const projects = await connectGet(
      "ProjectService/ListProjects",
      JSON.stringify({ pageSize: 1 }),
      bearer(token),
    );
    expect(projects.status).toBe(200);
    expect(projects.headers.get("etag")).not.toBe(null);
    const page = (await projects.json()) as { projects: { name: string }[]; nextPageToken: string };
    expect(page.projects.map((p) => p.name)).toEqual(["Alpha"]);
    const next = await connectGet(
      "ProjectService/ListProjects",
      JSON.stringify({ pageSize: 1, pageToken: page.nextPageToken }),
      bearer(token),
    );
    expect(((await next.json()) as typeof page).projects.map((p) => p.name)).toEqual(["Beta"]);
    expect((await connectGet("ProjectService/ListProjects", "{}")).status).toBe(401);

    await seedFolders(orgId, null, 2);
    const listed = await connectGet("FolderService/ListFolders", "{}", bearer(token));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { folders: unknown[] }).folders).toHaveLength(2);

    const create = await connectGet(
      "FolderService/CreateFolder",
      JSON.stringify({ name: "x" }),
      bearer(token),
    );
    expect(create.status).toBe(405);
    expect(await server.sql("select 1 from folders where org_id = $1 and name = 'x'", [orgId])).toHaveLength(
      0,
    );
  });
});

describe("the OpenAPI document and the docs page", () => {
  it("describe the folder reads from the proto: routes, scope, parameters and errors", async () => {
    const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string; in: string }[]; responses: object; security?: object[] }
        >
      >;
    };
    const get = document.paths["/folders/{id}"]?.get;
    const list = document.paths["/folders"]?.get;
    expect(get).toBeDefined();
    expect(list).toBeDefined();
    expect(get?.parameters).toContainEqual(expect.objectContaining({ name: "id", in: "path" }));
    expect(list?.parameters?.filter((p) => p.in === "query").map((p) => p.name)).toEqual(
      expect.arrayContaining(["parentId", "pageSize", "pageToken"]),
    );
    for (const operation of [get, list]) {
      expect(Object.keys(operation?.responses ?? {})).toEqual(
        expect.arrayContaining(["200", "400", "401", "403", "404"]),
      );
      // The scope, in the security requirement or (a bearer scheme without OAuth flows) the description.
      expect(JSON.stringify(operation)).toContain("files:read");
    }
    const docs = await fetch(`${server.baseUrl}/api/v1/docs`);
    expect(docs.status).toBe(200);
  });
});
