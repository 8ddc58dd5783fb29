// A route to the database that reaches a server which cannot write (a demoted primary behind a
// stale DNS name, virtual IP or proxy rule): creates are 503 `unavailable` with Retry-After, never
// 500; /readyz is 503 and gRPC health NOT_SERVING; once the route reaches a writable server again
// the instance is ready and creates succeed, on new connections. The read-only server here is the
// suite's own test database with default_transaction_read_only (SQLSTATE 25006, as a standby
// answers); the Patroni failover tests of tooling/local-cluster demote a real primary.
import { createClient } from "@connectrpc/connect";
import { Health, ServingStatus } from "@folio/grpc-health";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

const { SERVING, NOT_SERVING } = ServingStatus;

/** Polls `read` until `done` holds for its value; returns that value. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.runIf(process.env.DATABASE_URL)("a write that reaches a read-only server", () => {
  let server: TestServer;
  let admin: pg.Client;
  let databaseName: string;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({ DATABASE_POOL_SIZE: "4" });
    databaseName = decodeURIComponent(new URL(server.database.url).pathname.slice(1));
    const adminUrl = new URL(server.database.url);
    adminUrl.pathname = "/postgres";
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    token = await server.issuer.sign({});
  });

  afterAll(async () => {
    await admin
      ?.query(`ALTER DATABASE "${databaseName}" RESET default_transaction_read_only`)
      .catch(() => undefined);
    await admin?.end();
    await server?.close();
  });

  /** A create; with an Idempotency-Key it runs in a transaction, which Prisma releases without an error. */
  const create = async (name: string, idempotencyKey?: string) => {
    const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
      },
      body: JSON.stringify({ name }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json()) as { error?: { code: string; message: string } };
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
  };
  const readyz = async () => (await fetch(`${server.baseUrl}/readyz`)).status;

  it("is 503 unavailable with Retry-After, not ready, and recovers on new connections once writable", async () => {
    expect((await create("Before")).status).toBe(201);
    const health = createClient(Health, server.transport("grpc"));
    expect((await health.check({ service: "" })).status).toBe(SERVING);

    // The route now reaches a server that cannot write: every new session is read-only, and the
    // sessions open now are cut (a demoted primary restarts).
    await admin.query(`ALTER DATABASE "${databaseName}" SET default_transaction_read_only = on`);
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [databaseName],
    );
    const failed = await until(
      () => create(`During ${Date.now()}`),
      (reply) => reply.status === 503 && /read-only/.test(reply.body.error?.message ?? ""),
    );
    expect(failed.body.error?.code).toBe("unavailable");
    expect(Number(failed.retryAfter)).toBeGreaterThan(0);
    // Every create while the server is read-only fails the same way: no 500, nothing stored.
    for (let i = 0; i < 6; i++) {
      const reply = await create(`Refused ${i}`, i % 2 === 0 ? crypto.randomUUID() : undefined);
      expect(reply.status).toBe(503);
      expect(reply.body.error?.code).toBe("unavailable");
    }
    expect(await until(readyz, (status) => status === 503)).toBe(503);
    const reason = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as { reason: string };
    expect(reason.reason).toBe("database-read-only");
    expect((await health.check({ service: "" })).status).toBe(NOT_SERVING);
    expect((await health.check({ service: "folio.v1.FolderService" })).status).toBe(NOT_SERVING);
    const stored = await server.sql("SELECT name FROM folders WHERE name LIKE 'Refused %'");
    expect(stored).toEqual([]);

    // The route reaches a writable server again. Nothing cuts the read-only sessions: the server
    // dropped each one that failed a write, so the next create opens a new, writable connection.
    await admin.query(`ALTER DATABASE "${databaseName}" RESET default_transaction_read_only`);
    expect(await until(readyz, (status) => status === 200)).toBe(200);
    expect((await health.check({ service: "" })).status).toBe(SERVING);
    for (let i = 0; i < 4; i++) {
      expect((await create(`After ${i}`, crypto.randomUUID())).status).toBe(201);
    }
  });
});
