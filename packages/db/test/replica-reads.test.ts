// Project listings on a replica pool (createDb's `replica`): served there while it answers within
// its lag bound, from the primary when it cannot, and from the replica while the primary cannot.
// Real connections to the suite's PostgreSQL; the unreachable server is a loopback port nothing
// listens on. The lag bound is checked on routeReads with the lag it is told.
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, createDb, DatabaseUnavailableError, type Db } from "../src/index.js";
import { routeReads } from "../src/replica-reads.js";

/** A loopback URL where nothing listens: connections are refused at once. */
async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `postgres://postgres@127.0.0.1:${port}/nowhere`;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(process.env.DATABASE_URL)("replica reads", () => {
  let database: TestDatabase;
  const orgId = randomUUID();
  const opened: Db[] = [];
  const open = (primary: string, replica: string) => {
    const db = createDb(primary, {
      poolSize: 2,
      acquireTimeoutMs: 1_000,
      replica: { url: replica, poolSize: 2, acquireTimeoutMs: 1_000, checkIntervalMs: 100 },
    });
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    await applyMigrations(database.url, { log: () => {} });
    const db = createDb(database.url, { poolSize: 1 });
    await db.projects.insert([
      { orgId, name: "Alpha" },
      { orgId, name: "Beta" },
    ]);
    await db.close();
  });

  afterAll(async () => {
    for (const db of opened) await db.close();
    await database?.drop();
  });

  it("lists from the replica once it answers within the lag bound", async () => {
    // A server that is not a standby has no lag.
    const db = open(database.url, database.url);
    expect(db.readRoute()).toBe("primary");
    await until(() => db.readRoute() === "replica");
    expect((await db.projects.page({ orgId, limit: 10 })).map((p) => p.name)).toEqual(["Alpha", "Beta"]);
  });

  it("lists from the primary while the replica is unreachable", async () => {
    const db = open(database.url, await unreachableUrl());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(db.readRoute()).toBe("primary");
    expect((await db.projects.page({ orgId, limit: 10 })).map((p) => p.name)).toEqual(["Alpha", "Beta"]);
  });

  it("lists from the replica while the primary is unreachable, whose writability check fails as unavailable", async () => {
    const db = open(await unreachableUrl(), database.url);
    await until(() => db.readRoute() === "replica");
    expect((await db.projects.page({ orgId, limit: 1 })).map((p) => p.name)).toEqual(["Alpha"]);
    await expect(db.writable()).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });

  it("tells whether a replica is configured and answers", async () => {
    const unreachable = await unreachableUrl();
    expect(await open(unreachable, database.url).replicaAnswers()).toBe(true);
    expect(await open(database.url, unreachable).replicaAnswers()).toBe(false);
    const withoutReplica = createDb(database.url, { poolSize: 1 });
    opened.push(withoutReplica);
    expect(await withoutReplica.replicaAnswers()).toBe(false);
  });
});

describe("routeReads", () => {
  it("sends reads to the primary past the lag bound, back to the replica within it, and to the replica when the primary is down", async () => {
    let lagMs = 5_000;
    const changes: string[] = [];
    const routing = routeReads({
      replicaLagMs: async () => lagMs,
      maxLagMs: 2_000,
      // Only the checks the test asks for: the background one waits a minute.
      intervalMs: 60_000,
      onChange: (route, reason) => changes.push(`${route}: ${reason}`),
    });
    try {
      expect(await routing.check()).toBe("primary");
      expect(
        await routing.read(
          async () => "replica",
          async () => "primary",
        ),
      ).toBe("primary");
      lagMs = 100;
      expect(await routing.check()).toBe("replica");
      expect(
        await routing.read(
          async () => "replica",
          async () => "primary",
        ),
      ).toBe("replica");
      // A failed replica read is answered by the primary, and the route turns until the next check.
      expect(
        await routing.read(
          () => Promise.reject(new Error("canceled: conflict with recovery")),
          async () => "primary",
        ),
      ).toBe("primary");
      expect(routing.route).toBe("primary");
      // The primary failing over: a lagging replica still answers rather than nothing.
      lagMs = 60_000;
      expect(await routing.check()).toBe("primary");
      const down = new DatabaseUnavailableError("the database is unreachable", "unreachable");
      expect(
        await routing.read(
          async () => "stale replica",
          () => Promise.reject(down),
        ),
      ).toBe("stale replica");
      // Both down: the primary's failure is what the caller gets.
      await expect(
        routing.read(
          () => Promise.reject(new Error("replica down")),
          () => Promise.reject(down),
        ),
      ).rejects.toBe(down);
      expect(changes).toEqual([
        "replica: replica lag 100 ms",
        "primary: a read failed on the replica: canceled: conflict with recovery",
      ]);
    } finally {
      routing.stop();
    }
  });
});
