// The database stopped, killed and locked under a running server: requests fail fast with 503
// `unavailable` and Retry-After, the process stays up, it recovers by itself, and every folder a
// client was told was created is stored exactly once. The test runs a PostgreSQL of its own.
import { randomUUID } from "node:crypto";
import {
  canRunPostgresCluster,
  type PostgresCluster,
  startPostgresCluster,
  waitFor,
} from "@folio/test-support/postgres-cluster";
import { startTcpProxy } from "@folio/test-support/tcp-proxy";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

/** How long a request waits for a connection of the pool (DATABASE_ACQUIRE_TIMEOUT_MS). */
const ACQUIRE_TIMEOUT_MS = 2_000;
/** How long a statement waits for a lock (DATABASE_LOCK_TIMEOUT_MS). */
const LOCK_TIMEOUT_MS = 4_000;
/** Connections of the server's pool (DATABASE_POOL_SIZE). */
const POOL_SIZE = 10;
/**
 * The longest a request may take while the database is away: the acquire timeout, plus slack for
 * a loaded 2-core machine (the database restarting and 20 clients share it with the server).
 */
const OUTAGE_BOUND_MS = ACQUIRE_TIMEOUT_MS + 3_000;

interface Sent {
  readonly name: string;
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: string | null;
  readonly ms: number;
  readonly at: number;
}

describe.runIf(canRunPostgresCluster())("database faults", () => {
  let cluster: PostgresCluster;
  let server: TestServer;
  let token: string;
  const orgId = randomUUID();

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    server = await startTestServer(
      {
        DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
        DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
        DATABASE_POOL_SIZE: String(POOL_SIZE),
        RATE_LIMIT_ORG_REQUESTS: "0",
        RATE_LIMIT_TOKEN_REQUESTS: "0",
      },
      { databaseServerUrl: cluster.url },
    );
    token = await server.issuer.sign({ org_id: orgId });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    await cluster?.destroy();
  }, 180_000);

  /** Sends one create with a unique name and records what the client saw. */
  async function create(): Promise<Sent> {
    const name = `Folder ${randomUUID()}`;
    const started = Date.now();
    try {
      const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await response.json()) as { error?: { code: string } };
      return {
        name,
        status: response.status,
        code: body.error?.code,
        retryAfter: response.headers.get("retry-after"),
        ms: Date.now() - started,
        at: started,
      };
    } catch (error) {
      return {
        name,
        status: 0,
        code: String(error),
        retryAfter: null,
        ms: Date.now() - started,
        at: started,
      };
    }
  }

  /** 20 clients creating folders in a loop until `stop` resolves. */
  function load(stop: Promise<void>): Promise<Sent[]> {
    let stopped = false;
    void stop.then(() => {
      stopped = true;
    });
    const sent: Sent[] = [];
    const client = async () => {
      while (!stopped) sent.push(await create());
    };
    return Promise.all(Array.from({ length: 20 }, client)).then(() => sent);
  }

  async function storedNames(): Promise<string[]> {
    const client = new pg.Client({ connectionString: server.database.url });
    await client.connect();
    try {
      return (
        await client.query<{ name: string }>("SELECT name FROM folders WHERE org_id = $1", [orgId])
      ).rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  }

  /**
   * Sessions of the server's database waiting for a lock. Asked outside the locking transaction:
   * a transaction sees pg_stat_activity as it was at its first look.
   */
  async function waitingForLock(): Promise<number> {
    const [row] = await server.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    return row?.n ?? 0;
  }

  async function servesAgain(): Promise<boolean> {
    return (await create()).status === 201;
  }

  it.each([
    ["stopped (pg_ctl stop -m fast)", () => cluster.stop()],
    ["killed (SIGKILL to the postmaster)", () => cluster.kill()],
  ])(
    "survives the database being %s under load",
    async (_, fault) => {
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const running = load(done);
      // Under way: some folders created.
      await waitFor(async () => (await storedNames()).length > 0 || false, 30_000);
      await fault();
      const downSince = Date.now();
      // While it is down: every request is answered, fast, with 503 and Retry-After. Once the
      // server has seen the outage (the requests in flight when it began have failed, and one
      // is answered 503), every request is.
      await waitFor(async () => (await create()).status === 503, 30_000, 100);
      const outage = await Promise.all(Array.from({ length: 5 }, () => create()));
      for (const answer of outage) {
        expect(answer).toMatchObject({ status: 503, code: "unavailable" });
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(answer.ms).toBeLessThan(OUTAGE_BOUND_MS);
      }
      await cluster.start();
      const upAgain = Date.now();
      // It recovers by itself within seconds of the database coming back.
      await waitFor(servesAgain, 15_000, 200);
      const recoveredMs = Date.now() - upAgain;
      finish();
      const sent = await running;

      const statuses = new Set(sent.map((s) => s.status));
      expect([...statuses].every((status) => status === 201 || status === 503)).toBe(true);
      const slow = sent.filter((s) => s.at > downSince + 1000 && s.ms >= OUTAGE_BOUND_MS);
      expect(slow).toEqual([]);
      expect(recoveredMs).toBeLessThan(15_000);
      // Every folder a client was told was created is stored, exactly once.
      const stored = await storedNames();
      const counts = new Map<string, number>();
      for (const name of stored) counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const s of sent.filter((x) => x.status === 201)) expect(counts.get(s.name)).toBe(1);
      expect(sent.filter((s) => s.status === 201).length).toBeGreaterThan(0);
    },
    180_000,
  );

  it("keeps ListProjects prompt while a lock on folders holds creates, which fail at the lock timeout", async () => {
    const locker = new pg.Client({ connectionString: server.database.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
      // More blocked creates than the pool has connections.
      const creates = Promise.all(Array.from({ length: 3 * POOL_SIZE }, () => create()));
      // Lists are sent once the blocked creates hold most of the pool: were lists to queue for
      // the connections the creates hold, they would now.
      await waitFor(async () => (await waitingForLock()) >= POOL_SIZE / 2, 30_000, 50);
      const started = Date.now();
      const lists = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const response = await fetch(`${server.baseUrl}/api/v1/projects`, {
            headers: { authorization: `Bearer ${token}` },
          });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      const listMs = Date.now() - started;
      expect(lists).toEqual([200, 200, 200, 200, 200]);
      // Answered before the lock timeout, so before any blocked create gave up its connection:
      // lists did not wait for the creates' connections (had they queued behind them, they
      // would have been refused at the acquire timeout, or answered after the lock timeout).
      // The bound is the configured timeout, not an absolute time: lists take about 100 ms on
      // an idle machine, and a loaded one still answers them well within it.
      expect(listMs).toBeLessThan(LOCK_TIMEOUT_MS);
      const answers = await creates;
      for (const answer of answers) {
        expect(answer).toMatchObject({ status: 503, code: "unavailable" });
        // A create holding a connection fails at the lock timeout, one waiting for a connection
        // at the acquire timeout; slack for a loaded machine as above.
        expect(answer.ms).toBeLessThan(LOCK_TIMEOUT_MS + OUTAGE_BOUND_MS);
      }
    } finally {
      await locker.query("ROLLBACK").catch(() => undefined);
      await locker.end();
    }
    // The lock gone, creates succeed again.
    expect((await create()).status).toBe(201);
  }, 120_000);

  it("answers within the bound while the network to the database is cut, and recovers when it heals", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: cluster.port });
    const url = new URL(cluster.url);
    url.port = String(proxy.port);
    const cutOff = await startTestServer(
      {
        DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
        DATABASE_STATEMENT_TIMEOUT_MS: "1000",
        RATE_LIMIT_ORG_REQUESTS: "0",
        RATE_LIMIT_TOKEN_REQUESTS: "0",
      },
      { databaseServerUrl: url.toString() },
    );
    try {
      const tokenHere = await cutOff.issuer.sign({ org_id: orgId });
      const list = async () => {
        const started = Date.now();
        const response = await fetch(`${cutOff.baseUrl}/api/v1/projects`, {
          headers: { authorization: `Bearer ${tokenHere}` },
          signal: AbortSignal.timeout(30_000),
        });
        await response.arrayBuffer();
        return {
          status: response.status,
          ms: Date.now() - started,
          retryAfter: response.headers.get("retry-after"),
        };
      };
      expect((await list()).status).toBe(200);
      proxy.cut();
      const during = await Promise.all(Array.from({ length: 12 }, () => list()));
      for (const answer of during) {
        expect(answer.status).toBe(503);
        expect(answer.retryAfter).not.toBeNull();
        expect(answer.ms).toBeLessThan(OUTAGE_BOUND_MS);
      }
      proxy.heal();
      await waitFor(async () => (await list()).status === 200, 20_000, 200);
    } finally {
      await cutOff.close();
      await proxy.close();
    }
  }, 120_000);
});
