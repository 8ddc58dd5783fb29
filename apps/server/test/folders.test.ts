import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { FolderService } from "@folio/proto";
import { waitFor } from "@folio/test-support/postgres-cluster";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFolder, type Outcome, VIAS } from "./api.js";
import { startTestServer, type TestServer } from "./harness.js";
import { folderCount, newCaller } from "./workspace.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function folderOf(outcome: Outcome): JsonObject {
  expect(outcome.code, JSON.stringify(outcome.json)).toBe("ok");
  return outcome.json?.folder as JsonObject;
}

describe.each(VIAS)("CreateFolder over %s", (via) => {
  it("keeps a folder private to its organisation: another user of it sees the id and creates under it, another organisation cannot", async () => {
    const orgId = randomUUID();
    const [alice, bob] = await Promise.all(
      [randomUUID(), randomUUID()].map((sub) =>
        server.issuer.sign({ sub, org_id: orgId, scope: "files:upload" }),
      ),
    );
    const shared = folderOf(await createFolder(server, via, { name: "Shared" }, { token: alice as string }));
    expect(shared.visibility).toBe("private");
    const clash = await createFolder(server, via, { name: "shared" }, { token: bob as string });
    expect(clash.code).toBe("already_exists");
    expect(clash.errorInfo?.metadata.folderId).toBe(shared.id);
    const child = folderOf(
      await createFolder(
        server,
        via,
        { name: "Bob's", parentId: shared.id as string },
        { token: bob as string },
      ),
    );
    expect(child.parentId).toBe(shared.id);
    const stranger = await newCaller(server);
    const refused = await createFolder(
      server,
      via,
      { name: "Mine", parentId: shared.id as string },
      { token: stranger.token },
    );
    expect(refused.code).toBe("not_found");
    expect(JSON.stringify(refused)).not.toContain("Shared");
    expect(await folderCount(server, stranger.orgId)).toBe(0);
  });

  it("stores the name trimmed and in NFC, the colour as lower-case #rrggbb, and no colour as null", async () => {
    const { orgId, token } = await newCaller(server);
    const decomposed = "  Cafe\u0301 Plans \t";
    const folder = folderOf(await createFolder(server, via, { name: decomposed, color: "#AbC" }, { token }));
    expect(folder).toMatchObject({ name: "Caf\u00e9 Plans", color: "#aabbcc", orgId });
    expect(folder).not.toHaveProperty("parentId", expect.anything());
    const plain = folderOf(await createFolder(server, via, { name: "Plain" }, { token }));
    if (via === "rest") {
      expect(plain).toMatchObject({ color: null, parentId: null });
    } else {
      expect(plain.color).toBeUndefined();
      expect(plain.parentId).toBeUndefined();
    }
    const full = folderOf(await createFolder(server, via, { name: "Full", color: "#A1B2C3" }, { token }));
    expect(full.color).toBe("#a1b2c3");
    const rows = await server.sql("select name, color from folders where org_id = $1 order by name", [orgId]);
    expect(rows).toEqual([
      { name: "Caf\u00e9 Plans", color: "#aabbcc" },
      { name: "Full", color: "#a1b2c3" },
      { name: "Plain", color: null },
    ]);
  });

  it.each([
    ["empty", ""],
    ["only white space", " \t\n "],
    ["a slash", "a/b"],
    ["a backslash", "a\\b"],
    ["a dot", "."],
    ["two dots", ".."],
    ["a C0 control character", "bell\u0007"],
    ["a C1 control character", "next\u0085line"],
    ["DEL", "del\u007f"],
    ["256 characters", "x".repeat(256)],
  ])("refuses a name that is %s with 400 naming the field, and creates nothing", async (_, name) => {
    const { orgId, token } = await newCaller(server);
    const outcome = await createFolder(server, via, { name }, { token });
    expect(outcome.code).toBe("invalid_argument");
    if (via === "rest") expect(outcome.status).toBe(400);
    expect(outcome.fieldViolations).toEqual(["name"]);
    expect(await folderCount(server, orgId)).toBe(0);
  });

  it("counts characters, not UTF-16 units: 255 astral characters are a valid name", async () => {
    const { token } = await newCaller(server);
    const name = "\u{1d11e}".repeat(255);
    expect(folderOf(await createFolder(server, via, { name }, { token })).name).toBe(name);
  });

  it.each([["red"], ["#12"], ["#1234"], ["#ggg"], ["123456"], [""]])(
    "refuses the colour %j with 400",
    async (color) => {
      const { orgId, token } = await newCaller(server);
      const outcome = await createFolder(server, via, { name: "Tinted", color }, { token });
      expect(outcome.code).toBe("invalid_argument");
      expect(outcome.fieldViolations).toEqual(["color"]);
      expect(await folderCount(server, orgId)).toBe(0);
    },
  );

  it("lists every invalid field at once", async () => {
    const { token } = await newCaller(server);
    const outcome = await createFolder(
      server,
      via,
      { name: "..", color: "blue", parentId: "nope" },
      { token },
    );
    expect(outcome.fieldViolations).toEqual(["name", "parentId", "color"]);
  });

  it("creates a subfolder; a parent that is missing or another org's is 404 not_found", async () => {
    const { orgId, token } = await newCaller(server);
    const parent = folderOf(await createFolder(server, via, { name: "Parent" }, { token }));
    const child = folderOf(
      await createFolder(server, via, { name: "Child", parentId: parent.id as string }, { token }),
    );
    expect(child.parentId).toBe(parent.id);

    const missing = await createFolder(server, via, { name: "Orphan", parentId: randomUUID() }, { token });
    const other = await newCaller(server);
    const foreign = await createFolder(
      server,
      via,
      { name: "Intruder", parentId: parent.id as string },
      { token: other.token },
    );
    for (const outcome of [missing, foreign]) {
      expect(outcome.code).toBe("not_found");
      if (via === "rest") expect(outcome.status).toBe(404);
    }
    expect(await folderCount(server, orgId)).toBe(2);
    expect(await folderCount(server, other.orgId)).toBe(0);
  });

  it("keeps sibling names unique case-insensitively: 409 already_exists with the existing folder's id", async () => {
    const { orgId, token } = await newCaller(server);
    const first = folderOf(await createFolder(server, via, { name: "Stra\u00dfe" }, { token }));
    for (const name of ["STRASSE", "strasse", " Stra\u00dfe "]) {
      const clash = await createFolder(server, via, { name }, { token });
      expect(clash.code).toBe("already_exists");
      if (via === "rest") expect(clash.status).toBe(409);
      expect(clash.errorInfo).toEqual({ reason: "FOLDER_NAME_TAKEN", metadata: { folderId: first.id } });
      if (via === "rest") {
        const [detail] = (clash.json as { error: { details: object[] } }).error.details;
        expect(Object.keys(detail ?? {})).toEqual(["type", "reason", "domain", "metadata"]);
      }
    }
    // Under another parent, or in another org, the same name is free.
    const child = folderOf(
      await createFolder(server, via, { name: "strasse", parentId: first.id as string }, { token }),
    );
    const childClash = await createFolder(
      server,
      via,
      { name: "Strasse", parentId: first.id as string },
      { token },
    );
    expect(childClash.errorInfo).toEqual({ reason: "FOLDER_NAME_TAKEN", metadata: { folderId: child.id } });
    const other = await newCaller(server);
    folderOf(await createFolder(server, via, { name: "Stra\u00dfe" }, { token: other.token }));
    expect(await folderCount(server, orgId)).toBe(2);
  });

  it("checks in order: authentication, scope, validation, parent, name clash", async () => {
    const { token } = await newCaller(server);
    folderOf(await createFolder(server, via, { name: "Taken" }, { token }));
    const readOnly = await server.issuer.sign({ scope: "project:read" });
    const invalidAndMissing = { name: "", parentId: randomUUID() };
    expect((await createFolder(server, via, invalidAndMissing, { token: null })).code).toBe(
      "unauthenticated",
    );
    expect((await createFolder(server, via, invalidAndMissing, { token: readOnly })).code).toBe(
      "permission_denied",
    );
    expect((await createFolder(server, via, invalidAndMissing, { token })).code).toBe("invalid_argument");
    // A clashing name under a parent that does not exist: the parent is looked up first.
    expect((await createFolder(server, via, { name: "Taken", parentId: randomUUID() }, { token })).code).toBe(
      "not_found",
    );
    expect((await createFolder(server, via, { name: "Taken" }, { token })).code).toBe("already_exists");
  });
});

describe.each(VIAS)("idempotent CreateFolder over %s", (via) => {
  const withKey = (token: string, key: string) => ({ token, headers: { "idempotency-key": key } });

  it("replays the first response for a retry with the same key and request", async () => {
    const { orgId, token } = await newCaller(server);
    const key = randomUUID();
    const first = await createFolder(server, via, { name: "Reports", color: "#fff" }, withKey(token, key));
    const retry = await createFolder(
      server,
      via,
      { name: " Reports", color: "#FFFFFF" },
      withKey(token, key),
    );
    expect(retry.code).toBe("ok");
    expect(retry.status).toBe(first.status);
    expect(retry.json).toEqual(first.json);
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("takes the key from the request_id field too (AIP-155), and refuses a field that differs from the header", async () => {
    const { orgId, token } = await newCaller(server);
    const key = randomUUID();
    const first = folderOf(await createFolder(server, via, { name: "By field", requestId: key }, { token }));
    const byHeader = folderOf(await createFolder(server, via, { name: "By field" }, withKey(token, key)));
    expect(byHeader.id).toBe(first.id);
    const both = await createFolder(
      server,
      via,
      { name: "By field", requestId: key },
      withKey(token, randomUUID()),
    );
    expect(both.code).toBe("invalid_argument");
    expect(both.fieldViolations).toEqual(["requestId"]);
    const blank = await createFolder(server, via, { name: "Blank key" }, withKey(token, " "));
    expect(blank.code).toBe("invalid_argument");
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("refuses the same key with a different request: 409 already_exists, reason IDEMPOTENCY_KEY_REUSED", async () => {
    const { orgId, token } = await newCaller(server);
    const key = randomUUID();
    folderOf(await createFolder(server, via, { name: "Original" }, withKey(token, key)));
    const reused = await createFolder(server, via, { name: "Something else" }, withKey(token, key));
    expect(reused.code).toBe("already_exists");
    if (via === "rest") expect(reused.status).toBe(409);
    expect(reused.errorInfo?.reason).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("scopes keys to the user: another user's key is another key", async () => {
    const { orgId, token } = await newCaller(server);
    const colleague = await server.issuer.sign({ sub: randomUUID(), org_id: orgId });
    const key = randomUUID();
    folderOf(await createFolder(server, via, { name: "Shared name" }, withKey(token, key)));
    // Not a replay of the first user's folder: the request runs, and meets the name clash.
    const other = await createFolder(server, via, { name: "Shared name" }, withKey(colleague, key));
    expect(other.errorInfo?.reason).toBe("FOLDER_NAME_TAKEN");
  });

  it("remembers only a created folder: a request that failed can be retried with its key", async () => {
    const { orgId, token } = await newCaller(server);
    const taken = folderOf(await createFolder(server, via, { name: "Busy" }, { token }));
    const key = randomUUID();
    expect((await createFolder(server, via, { name: "Busy" }, withKey(token, key))).code).toBe(
      "already_exists",
    );
    await server.sql("delete from folders where id = $1", [taken.id]);
    expect((await createFolder(server, via, { name: "Busy" }, withKey(token, key))).code).toBe("ok");
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("forgets a key after 24 hours", async () => {
    const { orgId, userId, token } = await newCaller(server);
    const key = randomUUID();
    folderOf(await createFolder(server, via, { name: "Day one" }, withKey(token, key)));
    const [row] = await server.sql<{ hours: number }>(
      "select extract(epoch from expires_at - created_at) / 3600 as hours from idempotency_keys where org_id = $1 and user_id = $2",
      [orgId, userId],
    );
    expect(Number(row?.hours)).toBe(24);
    await server.sql(
      "update idempotency_keys set expires_at = now() - interval '1 second' where org_id = $1",
      [orgId],
    );
    // An expired key is a new key: a different request under it runs.
    folderOf(await createFolder(server, via, { name: "Day two" }, withKey(token, key)));
    expect(await folderCount(server, orgId)).toBe(2);
    await server.sql(
      "update idempotency_keys set expires_at = now() - interval '1 second' where org_id = $1",
      [orgId],
    );
    expect(await server.app.purgeExpiredIdempotencyKeys()).toBeGreaterThanOrEqual(1);
    expect(await server.sql("select 1 from idempotency_keys where org_id = $1", [orgId])).toHaveLength(0);
  });

  it.each([50, 16])(
    "creates exactly one folder for %i parallel first attempts with one new key",
    async (attempts) => {
      const { orgId, token } = await newCaller(server);
      const key = randomUUID();
      const outcomes = await Promise.all(
        Array.from({ length: attempts }, () =>
          createFolder(server, via, { name: "Once" }, withKey(token, key)),
        ),
      );
      expect(await folderCount(server, orgId)).toBe(1);
      const [row] = await server.sql<{ id: string }>("select id from folders where org_id = $1", [orgId]);
      for (const outcome of outcomes) {
        if (outcome.code === "ok") {
          expect(folderOf(outcome).id).toBe(row?.id);
          if (via === "rest") expect(outcome.status).toBe(201);
        } else {
          // Still running when this one arrived: retryable, and says when.
          expect(outcome.code).toBe("aborted");
          if (via === "rest") expect(outcome.status).toBe(409);
          expect(outcome.errorInfo?.reason).toBe("REQUEST_IN_PROGRESS");
          expect(outcome.headers.get("retry-after")).toBe("1");
        }
      }
      expect(outcomes.filter((o) => o.code === "ok").length).toBeGreaterThanOrEqual(1);
      const retry = await createFolder(server, via, { name: "Once" }, withKey(token, key));
      expect(folderOf(retry).id).toBe(row?.id);
      if (via === "rest") expect(retry.status).toBe(201);
    },
  );

  it("answers 16 parallel retries of a completed create with its stored response, never 'still running'", async () => {
    const { orgId, token } = await newCaller(server);
    const key = randomUUID();
    const first = folderOf(await createFolder(server, via, { name: "Done" }, withKey(token, key)));
    // Its 201 is in: nothing with this key runs any more, however many retries arrive at once.
    for (let round = 0; round < 3; round++) {
      const retries = await Promise.all(
        Array.from({ length: 16 }, () => createFolder(server, via, { name: "Done" }, withKey(token, key))),
      );
      for (const retry of retries) {
        expect(retry.code, JSON.stringify(retry.json)).toBe("ok");
        if (via === "rest") expect(retry.status).toBe(201);
        expect(folderOf(retry).id).toBe(first.id);
      }
    }
    expect(await folderCount(server, orgId)).toBe(1);
  });

  it("creates one folder for 50 parallel requests of one name without a key; 49 get already_exists", async () => {
    const { orgId, token } = await newCaller(server);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () => createFolder(server, via, { name: "Race" }, { token })),
    );
    const created = outcomes.filter((o) => o.code === "ok");
    expect(created).toHaveLength(1);
    const id = folderOf(created[0] as Outcome).id;
    const refused = outcomes.filter((o) => o.code === "already_exists");
    expect(refused).toHaveLength(49);
    for (const outcome of refused) expect(outcome.errorInfo?.metadata.folderId).toBe(id);
    expect(await folderCount(server, orgId)).toBe(1);
  });
});

describe("idempotency keys across protocols", () => {
  it("replays over Connect a folder created over REST with the same key", async () => {
    const { token } = await newCaller(server);
    const key = randomUUID();
    const rest = folderOf(
      await createFolder(server, "rest", { name: "Both" }, { token, headers: { "idempotency-key": key } }),
    );
    const connect = folderOf(
      await createFolder(server, "connect", { name: "Both", requestId: key }, { token }),
    );
    expect(connect.id).toBe(rest.id);
  });
});

describe.each(["grpc", "grpc-web"] as const)("CreateFolder over %s", (protocol) => {
  it("checks in the same order, and replays by request_id", async () => {
    const client = createClient(FolderService, server.transport(protocol));
    const { orgId, token } = await newCaller(server);
    const code = (call: Promise<unknown>) =>
      call.then(
        () => "ok",
        (e: unknown) => ConnectError.from(e).code,
      );
    const auth = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
    await client.createFolder({ name: "Taken" }, auth(token));
    const readOnly = await server.issuer.sign({ scope: "project:read" });
    const invalidAndMissing = { name: "..", parentId: randomUUID() };
    expect(await code(client.createFolder(invalidAndMissing))).toBe(Code.Unauthenticated);
    expect(await code(client.createFolder(invalidAndMissing, auth(readOnly)))).toBe(Code.PermissionDenied);
    expect(await code(client.createFolder(invalidAndMissing, auth(token)))).toBe(Code.InvalidArgument);
    expect(await code(client.createFolder({ name: "Taken", parentId: randomUUID() }, auth(token)))).toBe(
      Code.NotFound,
    );
    expect(await code(client.createFolder({ name: "TAKEN" }, auth(token)))).toBe(Code.AlreadyExists);

    const requestId = randomUUID();
    const first = await client.createFolder({ name: "Keyed", requestId }, auth(token));
    const again = await client.createFolder({ name: "Keyed", requestId }, auth(token));
    expect(again.folder?.id).toBe(first.folder?.id);
    expect(await folderCount(server, orgId)).toBe(2);
  });
});

// A request that died while holding its key: its database session is gone, and with it the key's
// lock (PostgreSQL's, for the transaction), so the retry it was told to make after Retry-After: 1
// is served. With a lease in a row, as before, the key stayed blocked for 60 s. PostgreSQL only:
// PGlite has one session for every connection, so no lock can hold one request while another runs.
describe.skipIf(!process.env.DATABASE_URL)("an idempotency key whose request died (PostgreSQL)", () => {
  let own: TestServer;
  beforeAll(async () => {
    own = await startTestServer({
      // The request stays blocked on the test's lock until its session is terminated.
      DATABASE_LOCK_TIMEOUT_MS: "120000",
      DATABASE_STATEMENT_TIMEOUT_MS: "120000",
    });
  });
  afterAll(async () => {
    await own?.close();
  });

  /** The backend holding an advisory lock (an idempotency key) in the server's database. */
  async function keyHolders(): Promise<number[]> {
    const rows = await own.sql<{ pid: number }>(
      `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
       WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()`,
    );
    return rows.map((row) => row.pid);
  }

  it("serves the retry as soon as the request's session is gone: 201, and one folder", async () => {
    const orgId = randomUUID();
    const token = await own.issuer.sign({ sub: randomUUID(), org_id: orgId });
    const key = randomUUID();
    const body = { name: "Survivor", color: "#123456" };
    const withKey = { token, headers: { "idempotency-key": key } };

    // The first request takes the key, then waits for the lock the test holds on folders.
    const locker = new pg.Client({ connectionString: own.database.url });
    await locker.connect();
    let first: Promise<Outcome> | undefined;
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
      first = createFolder(own, "rest", body, withKey);
      await waitFor(async () => (await keyHolders()).length === 1, 30_000, 50);
      const [holder] = await keyHolders();

      // While it runs, a retry is told to come back in a second.
      const early = await createFolder(own, "rest", body, withKey);
      expect(early).toMatchObject({ code: "aborted", status: 409 });
      expect(early.errorInfo?.reason).toBe("REQUEST_IN_PROGRESS");
      expect(early.headers.get("retry-after")).toBe("1");

      // The request dies: its database session is terminated (as when its server is killed, or
      // the connection is cut). Its client, if still there, is told 503: never a folder.
      const [terminated] = await own.sql<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [holder]);
      expect(terminated?.ok).toBe(true);
      expect(await first).toMatchObject({ code: "unavailable", status: 503 });
      // Its session has ended (so it can create nothing once the lock is released).
      await waitFor(
        async () => (await own.sql("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [holder])).length === 0,
        30_000,
        50,
      );
    } finally {
      await locker.query("ROLLBACK").catch(() => undefined);
      await locker.end();
      await first?.catch(() => undefined);
    }

    // The first retry, sent at once (well inside the second Retry-After asked for), is served.
    const retry = await createFolder(own, "rest", body, withKey);
    expect(retry.code, JSON.stringify(retry.json)).toBe("ok");
    expect(retry.status).toBe(201);
    expect(await own.sql("SELECT name FROM folders WHERE org_id = $1", [orgId])).toEqual([
      { name: "Survivor" },
    ]);
    // And remembered: the next retry replays it.
    const replay = await createFolder(own, "rest", body, withKey);
    expect(replay.status).toBe(201);
    expect(replay.json).toEqual(retry.json);
    expect(await own.sql("SELECT count(*)::int AS n FROM folders WHERE org_id = $1", [orgId])).toEqual([
      { n: 1 },
    ]);
  });
});
