// Liveness, readiness and gRPC health: what load balancers and orchestrators probe. The database
// outage runs on an embedded database of the test's own, stopped and started again on its port.
// The pending migration runs on the suite's database (PostgreSQL with DATABASE_URL, else PGlite).
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { applyMigrations } from "@folio/db";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@folio/embedded-postgres";
import { Health, ServingStatus } from "@folio/grpc-health";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER } from "@folio/test-support/tokens";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../src/app.js";
import { loadConfig } from "../src/env.js";
import { type Listening, listen } from "../src/transport/listen.js";
import { createTransport, startTestServer, type TestServer } from "./harness.js";

const { SERVING, NOT_SERVING } = ServingStatus;
const SERVICES = ["", "folio.v1.FolderService", "folio.v1.ProjectService"];

/** Polls `read` until it returns `expected` (the background check runs every second). */
async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (last === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`still ${String(last)} after ${timeoutMs} ms, expected ${String(expected)}`);
}

describe("probes", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers GET /healthz and GET /readyz with 200 and no credentials", async () => {
    const live = await fetch(`${server.baseUrl}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(ready.headers.get("cache-control")).toBe("no-store");
  });

  it("answers gRPC health Check for the server and each service without credentials", async () => {
    for (const protocol of ["grpc", "connect", "grpc-web"] as const) {
      const health = createClient(Health, server.transport(protocol));
      for (const service of SERVICES) {
        expect((await health.check({ service })).status, `${protocol} ${service}`).toBe(SERVING);
      }
    }
    const health = createClient(Health, server.transport("grpc"));
    const unknown = await health.check({ service: "folio.v1.NoSuchService" }).catch((e: unknown) => e);
    expect(ConnectError.from(unknown).code).toBe(Code.NotFound);
    const { statuses } = await health.list({});
    expect(Object.keys(statuses).sort()).toEqual([...SERVICES].sort());
  });
});

describe("shutdown", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("turns /readyz to 503 and gRPC health to NOT_SERVING at once, while requests are still served", async () => {
    const health = createClient(Health, server.transport("grpc"));
    const watch = new AbortController();
    const watched: ServingStatus[] = [];
    const watching = (async () => {
      for await (const { status } of health.watch({ service: "" }, { signal: watch.signal })) {
        watched.push(status);
        if (status === SERVING) server.app.beginShutdown();
      }
    })();
    await eventually(async () => watched.at(-1), NOT_SERVING, 5_000);

    const ready = await fetch(`${server.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "not ready", reason: "shutting-down" });
    for (const service of SERVICES) expect((await health.check({ service })).status).toBe(NOT_SERVING);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);

    // Draining ends the Watch streams, which would otherwise hold their connections open.
    server.app.endStreams();
    await watching;
    expect(watched).toEqual([SERVING, NOT_SERVING]);
  });
});

describe("the database goes away and comes back", () => {
  let dir: string;
  let database: EmbeddedPostgres;
  let port: number;
  let app: App;
  let listening: Listening;
  let baseUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "folio-readiness-"));
    database = await startEmbeddedPostgres({ dataDir: join(dir, "postgres") });
    port = Number(new URL(database.url).port);
    await applyMigrations(database.url, { log: () => undefined });
    const issuer = await createTestIssuer();
    await writeFile(join(dir, "jwks.json"), JSON.stringify(issuer.jwks));
    const config = loadConfig({
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: "1",
      DATABASE_ACQUIRE_TIMEOUT_MS: "2000",
      DATA_DIR: dir,
      AUTH_JWKS_FILE: join(dir, "jwks.json"),
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_AUDIENCE: TEST_AUDIENCE,
    });
    app = await createApp(config, pino({ level: "silent" }));
    listening = await listen(app.handler, { host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${listening.port}`;
  });

  afterAll(async () => {
    await listening?.close(1000);
    await app?.close();
    await database?.stop();
    await removeTempDir(dir);
  });

  it("turns /readyz to 503 and gRPC health to NOT_SERVING while it is away, and back when it returns", async () => {
    const readyz = async () => (await fetch(`${baseUrl}/readyz`)).status;
    const health = createClient(Health, createTransport("grpc", baseUrl));
    const watch = new AbortController();
    const watched: ServingStatus[] = [];
    const watching = (async () => {
      for await (const { status } of health.watch(
        { service: "folio.v1.FolderService" },
        { signal: watch.signal },
      )) {
        watched.push(status);
      }
    })().catch(() => undefined);

    expect(await readyz()).toBe(200);
    await database.stop();
    await eventually(readyz, 503);
    const away = await fetch(`${baseUrl}/readyz`);
    expect(await away.json()).toEqual({ status: "not ready", reason: "database-unreachable" });
    for (const service of SERVICES) expect((await health.check({ service })).status).toBe(NOT_SERVING);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);

    database = await startEmbeddedPostgres({ dataDir: join(dir, "postgres"), port });
    await eventually(readyz, 200);
    for (const service of SERVICES) expect((await health.check({ service })).status).toBe(SERVING);

    watch.abort();
    await watching;
    expect(watched).toEqual([SERVING, NOT_SERVING, SERVING]);
  }, 90_000);
});

describe("a migration the server expects is missing from its database", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("turns /readyz to 503 (migrations-pending) and gRPC health to NOT_SERVING, and back once it is recorded again", async () => {
    const readyz = async () => (await fetch(`${server.baseUrl}/readyz`)).status;
    const health = createClient(Health, server.transport("grpc"));
    const watch = new AbortController();
    const watched: ServingStatus[] = [];
    const watching = (async () => {
      for await (const { status } of health.watch({ service: "" }, { signal: watch.signal })) {
        watched.push(status);
      }
    })().catch(() => undefined);

    expect(await readyz()).toBe(200);
    await eventually(async () => watched.at(-1), SERVING, 5_000);
    // As if the server were newer than the database: its latest migration not applied there.
    const [latest] = await server.sql(
      `SELECT * FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`,
    );
    expect(latest?.finished_at).not.toBeNull();
    await server.sql(`DELETE FROM "_prisma_migrations" WHERE id = $1`, [latest?.id]);
    try {
      expect(await server.app.db.pendingMigrations()).toEqual([latest?.migration_name]);
      await eventually(readyz, 503);
      const pending = await fetch(`${server.baseUrl}/readyz`);
      expect(await pending.json()).toEqual({ status: "not ready", reason: "migrations-pending" });
      for (const service of SERVICES) expect((await health.check({ service })).status).toBe(NOT_SERVING);
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      const columns = Object.keys(latest ?? {});
      await server.sql(
        `INSERT INTO "_prisma_migrations" (${columns.map((c) => `"${c}"`).join(", ")})
         VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
        columns.map((c) => latest?.[c]),
      );
    }
    await eventually(readyz, 200);
    expect(await (await fetch(`${server.baseUrl}/readyz`)).json()).toEqual({ status: "ready" });
    for (const service of SERVICES) expect((await health.check({ service })).status).toBe(SERVING);

    watch.abort();
    await watching;
    expect(watched).toEqual([SERVING, NOT_SERVING, SERVING]);
  }, 90_000);
});
