import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyMigrations,
  createDb,
  DatabaseUnavailableError,
  type Db,
  type IdempotencyScope,
  type NewFolder,
} from "../src/index.js";

let database: TestDatabase;
let db: Db;
let sql: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  await applyMigrations(database.url, { log: () => {} });
  db = createDb(database.url, { poolSize: database.poolSize });
  sql = new pg.Pool({ connectionString: database.url, max: 1 });
});

afterAll(async () => {
  await sql?.end();
  await db?.close();
  await database?.drop();
});

function newFolder(orgId: string, name: string, parentId: string | null = null): NewFolder {
  return {
    orgId,
    name,
    nameKey: name.toLowerCase(),
    parentId,
    color: null,
    visibility: "private",
    createdByUserId: randomUUID(),
  };
}

async function created(folder: NewFolder) {
  const result = await db.folders.create(folder);
  if (result.kind !== "created") throw new Error(`expected a folder, got ${result.kind}`);
  return result.folder;
}

describe("createDb", () => {
  it("needs a positive pool size", () => {
    expect(() => createDb(database.url, { poolSize: 0 })).toThrow(/poolSize/);
  });

  it("answers a ping while the database is up", async () => {
    expect(await db.ping()).toBe(true);
  });

  it("has no pending migrations once they are applied", async () => {
    expect(await db.pendingMigrations()).toEqual([]);
  });
});

describe("folders.create", () => {
  it("creates a folder with the database's defaults", async () => {
    const orgId = randomUUID();
    const folder = await created(newFolder(orgId, "Plans"));
    expect(folder).toMatchObject({
      orgId,
      name: "Plans",
      parentId: null,
      color: null,
      visibility: "private",
    });
    expect(folder.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(folder.createdAt).toBeInstanceOf(Date);

    const child = await created(newFolder(orgId, "Ground floor", folder.id));
    expect(child.parentId).toBe(folder.id);
  });

  it("says parent-not-found for a missing parent and for another org's folder", async () => {
    const theirs = await created(newFolder(randomUUID(), "Theirs"));
    expect(await db.folders.create(newFolder(randomUUID(), "Mine", theirs.id))).toEqual({
      kind: "parent-not-found",
    });
    expect(await db.folders.create(newFolder(randomUUID(), "Mine", randomUUID()))).toEqual({
      kind: "parent-not-found",
    });
  });

  it("says name-taken with the sibling's id, per parent, top level included", async () => {
    const orgId = randomUUID();
    const top = await created(newFolder(orgId, "Plans"));
    expect(await db.folders.create(newFolder(orgId, "PLANS"))).toEqual({
      kind: "name-taken",
      existingId: top.id,
    });
    const child = await created(newFolder(orgId, "Plans", top.id));
    expect(await db.folders.create(newFolder(orgId, "plans", top.id))).toEqual({
      kind: "name-taken",
      existingId: child.id,
    });
    // The same name elsewhere is fine: under another parent, or in another org.
    await created(newFolder(orgId, "Plans", child.id));
    await created(newFolder(randomUUID(), "Plans"));
  });

  it("creates one of many concurrent folders of one name, and names it to the others", async () => {
    const orgId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 30 }, () => db.folders.create(newFolder(orgId, "Race"))),
    );
    const winners = results.filter((r) => r.kind === "created");
    expect(winners).toHaveLength(1);
    const id = winners[0]?.kind === "created" ? winners[0].folder.id : undefined;
    expect(results.filter((r) => r.kind === "name-taken" && r.existingId === id)).toHaveLength(29);
  });

  it("keeps a parent of another org out at the schema level too (composite foreign key)", async () => {
    const theirs = await created(newFolder(randomUUID(), "Theirs"));
    await expect(
      sql.query(
        `INSERT INTO folders (org_id, name, name_key, parent_id, created_by_user_id) VALUES ($1, 'x', 'x', $2, $3)`,
        [randomUUID(), theirs.id, randomUUID()],
      ),
    ).rejects.toThrow(/foreign key/i);
  });
});

describe("the statements on the pool and in a transaction", () => {
  // Outside a transaction they run through pg, inside one through Prisma: the same rows either way.
  it("read the same projects and create folders of the same shape", async () => {
    const orgId = randomUUID();
    await db.projects.insert([
      {
        orgId,
        name: "Quay",
        street: "Rheinweg",
        houseNumber: "3",
        postalCode: "4058",
        city: "Basel",
        country: "CH",
      },
      { orgId, name: "Lock" },
    ]);
    const onPool = await db.projects.page({ orgId, limit: 10 });
    expect(onPool).toHaveLength(2);
    expect(await db.transaction((tx) => tx.projects.page({ orgId, limit: 10 }))).toEqual(onPool);

    const parent = await created(newFolder(orgId, "Site"));
    const inTransaction = await db.transaction((tx) => tx.folders.create(newFolder(orgId, "Survey")));
    expect(inTransaction.kind).toBe("created");
    const other = inTransaction.kind === "created" ? inTransaction.folder : undefined;
    expect(Object.keys(other ?? {}).sort()).toEqual(Object.keys(parent).sort());
    for (const [key, value] of Object.entries(parent)) {
      expect(typeof (other as Record<string, unknown>)[key], key).toBe(typeof value);
    }
    expect(other?.createdAt).toBeInstanceOf(Date);
  });
});

describe("projects.page", () => {
  it("reads created_at to the millisecond, truncated, before 1970 and in year 1 too", async () => {
    const orgId = randomUUID();
    const stored = [
      ["a", "2026-11-26 07:00:00.123999+00", "2026-11-26T07:00:00.123Z"],
      ["b", "1969-12-31 23:59:59.9995+00", "1969-12-31T23:59:59.999Z"],
      ["c", "0001-01-01 00:00:00.5+00", "0001-01-01T00:00:00.500Z"],
    ];
    for (const [name, createdAt] of stored) {
      await sql.query("INSERT INTO projects (org_id, name, created_at) VALUES ($1, $2, $3)", [
        orgId,
        name,
        createdAt,
      ]);
    }
    const page = await db.projects.page({ orgId, limit: 10 });
    expect(page.map((p) => new Date(p.createdAtMs).toISOString())).toEqual(stored.map(([, , iso]) => iso));
  });

  it("pages an org's projects by (name, id) with filters", async () => {
    const orgId = randomUUID();
    const ids = [randomUUID(), randomUUID()].sort();
    await db.projects.insert([
      { orgId, name: "Harbour", city: "Basel" },
      { id: ids[1], orgId, name: "Bridge", city: "Basel" },
      { id: ids[0], orgId, name: "Bridge" },
      { orgId: randomUUID(), name: "Another org's" },
    ]);
    const first = await db.projects.page({ orgId, limit: 2 });
    expect(first.map((p) => [p.name, p.id])).toEqual([
      ["Bridge", ids[0]],
      ["Bridge", ids[1]],
    ]);
    expect(first[0]).toMatchObject({
      street: null,
      houseNumber: null,
      postalCode: null,
      city: null,
      country: null,
    });
    expect(first[0]?.createdAtMs).toBeTypeOf("number");
    const rest = await db.projects.page({ orgId, limit: 2, after: { name: "Bridge", id: ids[1] as string } });
    expect(rest.map((p) => p.name)).toEqual(["Harbour"]);
    expect((await db.projects.page({ orgId, limit: 10, city: "Basel" })).map((p) => p.name)).toEqual([
      "Bridge",
      "Harbour",
    ]);
    // The prefix is literal: LIKE's wildcards mean themselves.
    expect(await db.projects.page({ orgId, limit: 10, namePrefix: "B%" })).toEqual([]);
    expect(await db.projects.page({ orgId, limit: 10, namePrefix: "Br" })).toHaveLength(2);
  });
});

describe("idempotency keys", () => {
  const scope = (): IdempotencyScope => ({
    orgId: randomUUID(),
    userId: randomUUID(),
    operation: "test/Op",
    key: randomUUID(),
  });

  it("remembers a request in the transaction that made its changes", async () => {
    const key = scope();
    const response = new Uint8Array([1, 2, 3]);
    await db.transaction(async (tx) => {
      expect(await tx.idempotencyKeys.lock(key)).toBe(true);
      expect(await tx.idempotencyKeys.find(key)).toBeUndefined();
      await tx.idempotencyKeys.remember(key, { requestHash: "h", response }, 60);
    });
    const found = await db.transaction(async (tx) => {
      await tx.idempotencyKeys.lock(key);
      return tx.idempotencyKeys.find(key);
    });
    expect(found).toEqual({ requestHash: "h", response });
  });

  it("forgets what a rolled-back transaction remembered", async () => {
    const key = scope();
    await expect(
      db.transaction(async (tx) => {
        await tx.idempotencyKeys.lock(key);
        await tx.idempotencyKeys.remember(key, { requestHash: "h", response: new Uint8Array([1]) }, 60);
        throw new Error("the request failed");
      }),
    ).rejects.toThrow("the request failed");
    expect(await db.transaction((tx) => tx.idempotencyKeys.find(key))).toBeUndefined();
  });

  it("ignores and purges expired keys", async () => {
    const key = scope();
    await db.transaction((tx) =>
      tx.idempotencyKeys.remember(key, { requestHash: "h", response: new Uint8Array() }, 0),
    );
    expect(await db.transaction((tx) => tx.idempotencyKeys.find(key))).toBeUndefined();
    expect(await db.idempotencyKeys.purgeExpired()).toBeGreaterThanOrEqual(1);
  });

  it.runIf(process.env.DATABASE_URL)("refuses the lock while another transaction holds it", async () => {
    const key = scope();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => undefined;
    const first = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = db.transaction(async (tx) => {
      await tx.idempotencyKeys.lock(key);
      locked();
      await held;
    });
    await first;
    expect(await db.transaction((tx) => tx.idempotencyKeys.lock(key))).toBe(false);
    release();
    await holder;
    expect(await db.transaction((tx) => tx.idempotencyKeys.lock(key))).toBe(true);
  });
});

describe("transactions", () => {
  it("runs many concurrent transactions through the pool, each committed whole", async () => {
    const orgId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        db.transaction(async (tx) => {
          const folder = await tx.folders.create(newFolder(orgId, `Folder ${i}`));
          await tx.idempotencyKeys.remember(
            { orgId, userId: randomUUID(), operation: "t", key: String(i) },
            { requestHash: String(i), response: new Uint8Array([i]) },
            60,
          );
          return folder.kind;
        }),
      ),
    );
    expect(results.every((kind) => kind === "created")).toBe(true);
    const [{ count }] = (
      await sql.query(`SELECT count(*)::int AS count FROM folders WHERE org_id = $1`, [orgId])
    ).rows;
    expect(count).toBe(100);
  });
});

describe("failures", () => {
  it("rejects with DatabaseUnavailableError when no connection is free in time", async () => {
    const small = createDb(database.url, { poolSize: 1, acquireTimeoutMs: 200 });
    try {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => {
        started = resolve;
      });
      const holder = small.transaction(async () => {
        started();
        await held;
      });
      await holding;
      await expect(small.projects.page({ orgId: randomUUID(), limit: 1 })).rejects.toBeInstanceOf(
        DatabaseUnavailableError,
      );
      release();
      await holder;
    } finally {
      await small.close();
    }
  });

  it("rejects with DatabaseUnavailableError when the server cannot be reached", async () => {
    const server = await import("node:net").then(
      (net) =>
        new Promise<import("node:net").Server>((resolve) => {
          const s = net.createServer();
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    );
    const port = (server.address() as import("node:net").AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const gone = createDb(`postgres://postgres@127.0.0.1:${port}/postgres`, { poolSize: 1 });
    try {
      await expect(gone.projects.page({ orgId: randomUUID(), limit: 1 })).rejects.toBeInstanceOf(
        DatabaseUnavailableError,
      );
      expect(await gone.ping()).toBe(false);
    } finally {
      await gone.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)(
    "rejects with DatabaseUnavailableError when a lock is not granted in time",
    async () => {
      const quick = createDb(database.url, { poolSize: 2, lockTimeoutMs: 200 });
      const locker = new pg.Client({ connectionString: database.url });
      await locker.connect();
      try {
        await locker.query("BEGIN; LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
        await expect(quick.folders.create(newFolder(randomUUID(), "Locked out"))).rejects.toMatchObject({
          name: "DatabaseUnavailableError",
          reason: "lock-timeout",
        });
      } finally {
        await locker.query("ROLLBACK");
        await locker.end();
        await quick.close();
      }
    },
  );
});
