// @folio/client's retries against a real server and real faults: the network to PostgreSQL cut for
// seconds while 50 creates run (each ends with exactly one folder), the rate limit's 429 with
// Retry-After: 1 waited out, invalid_argument never repeated, a deadline ending the retries; and
// its page iteration over a 2,500-project organisation.
import { randomUUID } from "node:crypto";
import { createFolioClient, type FolioClient, FolioError, type Protocol } from "@folio/client";
import {
  canRunPostgresCluster,
  type PostgresCluster,
  startPostgresCluster,
  waitFor,
} from "@folio/test-support/postgres-cluster";
import { startTcpProxy, type TcpProxy } from "@folio/test-support/tcp-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

/** One request the client sent, as its fetch saw it. */
interface Sent {
  readonly url: string;
  readonly status: number;
  readonly retryAfter: string | null;
  readonly sentAt: number;
  readonly answeredAt: number;
}

/**
 * A fetch that records every request the client sends and its answer, with the Retry-After the
 * server sent: a header (REST, Connect), or a trailer in the body (gRPC-Web).
 */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const sentAt = Date.now();
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    let retryAfter = response.headers.get("retry-after");
    if (retryAfter === null && response.headers.get("content-type")?.startsWith("application/grpc-web")) {
      const body = Buffer.from(await response.clone().arrayBuffer()).toString("latin1");
      retryAfter = /retry-after:\s*(\d+)/i.exec(body)?.[1] ?? null;
    }
    sent.push({ url, status: response.status, retryAfter, sentAt, answeredAt: Date.now() });
    return response;
  };
}

/** Protocols whose requests go through fetch (gRPC goes through Node's HTTP/2). */
const FETCH_PROTOCOLS = ["rest", "connect", "grpc-web"] as const;

const postgresUrl = process.env.DATABASE_URL;

describe.runIf(postgresUrl !== undefined || canRunPostgresCluster())(
  "@folio/client against database faults",
  () => {
    let cluster: PostgresCluster | undefined;
    let proxy: TcpProxy;
    let server: TestServer;
    let token: string;
    const orgId = randomUUID();

    beforeAll(async () => {
      let target = postgresUrl;
      if (target === undefined) {
        cluster = await startPostgresCluster();
        target = cluster.url;
      }
      const url = new URL(target);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || "5432") });
      url.port = String(proxy.port);
      server = await startTestServer(
        {
          // As database-faults.test.ts cuts the network: requests give up on the pool fast, 503.
          DATABASE_ACQUIRE_TIMEOUT_MS: "2000",
          DATABASE_STATEMENT_TIMEOUT_MS: "1000",
          RATE_LIMIT_ORG_REQUESTS: "0",
          RATE_LIMIT_TOKEN_REQUESTS: "0",
        },
        { databaseServerUrl: url.toString() },
      );
      token = await server.issuer.sign({ org_id: orgId, sub: randomUUID(), scope: "files:upload" }, {}, "1h");
    }, 180_000);

    afterAll(async () => {
      proxy?.heal();
      await server?.close();
      await proxy?.close();
      await cluster?.destroy();
    }, 180_000);

    it("creates exactly one folder for each of 50 creates that run while the database is cut off, over every protocol", async () => {
      const sent = new Map<Protocol, Sent[]>(FETCH_PROTOCOLS.map((protocol) => [protocol, []]));
      const retry = { maxAttempts: 30, maxDelayMs: 5_000 };
      const clients = new Map<Protocol, FolioClient>(
        (["rest", "connect", "grpc-web", "grpc"] as const).map((protocol) => [
          protocol,
          createFolioClient({
            baseUrl: server.baseUrl,
            token,
            protocol,
            retry,
            fetch: recordingFetch(sent.get(protocol) ?? []),
          }),
        ]),
      );
      const protocols = [...clients.keys()];
      const names = Array.from({ length: 50 }, (_, i) => `Outage ${i} ${randomUUID()}`);

      proxy.cut();
      const results = Promise.allSettled(
        names.map((name, i) => {
          const protocol = protocols[i % protocols.length] as Protocol;
          return (clients.get(protocol) as FolioClient).createFolder({ name }, { timeoutMs: 90_000 });
        }),
      );
      // The outage is seen: the server answers unavailable with Retry-After on each fetch protocol.
      await waitFor(
        async () =>
          FETCH_PROTOCOLS.every((protocol) => sent.get(protocol)?.some((s) => s.retryAfter !== null)),
        60_000,
        100,
      );
      proxy.heal();

      const settled = await results;
      const failures = settled.filter((result) => result.status === "rejected");
      expect(failures).toEqual([]);
      const folders = settled.map((result) => (result.status === "fulfilled" ? result.value : undefined));
      expect(folders.map((folder) => folder?.name)).toEqual(names);
      expect(new Set(folders.map((folder) => folder?.id)).size).toBe(50);

      const stored = await server.sql<{ name: string; count: string }>(
        "SELECT name, count(*) AS count FROM folders WHERE org_id = $1 GROUP BY name",
        [orgId],
      );
      expect(stored.length).toBe(50);
      expect(stored.every((row) => Number(row.count) === 1)).toBe(true);
      expect(new Set(stored.map((row) => row.name))).toEqual(new Set(names));
      // They were retried: more requests than creates went out.
      for (const protocol of FETCH_PROTOCOLS) {
        const creates = names.filter((_, i) => protocols[i % protocols.length] === protocol).length;
        expect(sent.get(protocol)?.length, protocol).toBeGreaterThan(creates);
      }
    }, 180_000);

    it("stops retrying at the call's deadline", async () => {
      for (const protocol of ["rest", "connect", "grpc"] as const) {
        const sent: Sent[] = [];
        const client = createFolioClient({
          baseUrl: server.baseUrl,
          token,
          protocol,
          retry: { maxAttempts: 1000, initialDelayMs: 50, maxDelayMs: 5_000 },
          fetch: recordingFetch(sent),
        });
        proxy.cut();
        try {
          const started = Date.now();
          const error = await client
            .createFolder({ name: `Deadline ${randomUUID()}` }, { timeoutMs: 3_000 })
            .then(
              () => undefined,
              (reason: unknown) => reason,
            );
          const elapsed = Date.now() - started;
          expect(error, protocol).toBeInstanceOf(FolioError);
          expect((error as FolioError).codeName, protocol).toMatch(
            /^(unavailable|deadline_exceeded|canceled)$/,
          );
          // Ended by the deadline (3 s), not by the 1000 attempts; slack for a loaded machine.
          expect(elapsed, protocol).toBeLessThan(3_000 + 4_000);
        } finally {
          proxy.heal();
        }
        // The database is back before the next protocol's turn.
        await waitFor(
          async () =>
            await server.sql("SELECT 1").then(
              () => true,
              () => false,
            ),
          30_000,
          200,
        );
      }
    }, 120_000);
  },
);

describe("@folio/client against the rate limit and bad input", () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    // One request per token per second: the second within a second is 429 with Retry-After: 1.
    server = await startTestServer({
      RATE_LIMIT_ORG_REQUESTS: "1000",
      RATE_LIMIT_TOKEN_REQUESTS: "1",
      RATE_LIMIT_WINDOW_SECONDS: "1",
    });
    token = await server.issuer.sign({ org_id: randomUUID(), sub: randomUUID() }, {}, "1h");
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  it.each(FETCH_PROTOCOLS)(
    "waits out a 429's Retry-After: 1 before it retries, over %s",
    async (protocol) => {
      const sent: Sent[] = [];
      const client = createFolioClient({
        baseUrl: server.baseUrl,
        token,
        protocol,
        fetch: recordingFetch(sent),
      });
      await client.listProjects();
      await client.listProjects();
      const limited = sent.findIndex((s) => s.retryAfter === "1");
      expect(limited, JSON.stringify(sent)).toBeGreaterThan(-1);
      const next = sent[limited + 1];
      expect(next).toBeDefined();
      expect((next as Sent).sentAt - (sent[limited] as Sent).answeredAt).toBeGreaterThanOrEqual(1_000);
    },
  );

  it.each([...FETCH_PROTOCOLS])("never retries invalid_argument, over %s", async (protocol) => {
    const sent: Sent[] = [];
    const client = createFolioClient({
      baseUrl: server.baseUrl,
      token: await server.issuer.sign(
        { org_id: randomUUID(), sub: randomUUID(), scope: "files:upload" },
        {},
        "1h",
      ),
      protocol,
      fetch: recordingFetch(sent),
    });
    const error = await client.createFolder({ name: "Bad colour", color: "blue" }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(FolioError);
    expect((error as FolioError).codeName).toBe("invalid_argument");
    expect((error as FolioError).fieldViolations.map((v) => v.field)).toEqual(["color"]);
    expect(sent.length).toBe(1);
  });
});

describe("@folio/client tokens", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_ORG_REQUESTS: "0", RATE_LIMIT_TOKEN_REQUESTS: "0" });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  it.each(["rest", "connect", "grpc-web", "grpc"] as const)(
    "asks the token provider once more when the token expired, and no more, over %s",
    async (protocol) => {
      const org = randomUUID();
      const expired = await server.issuer.sign({ org_id: org, scope: "project:read", iat: 1, exp: 2 });
      const fresh = await server.issuer.sign({ org_id: org, scope: "project:read" }, {}, "1h");
      const asked: boolean[] = [];
      const refreshing = createFolioClient({
        baseUrl: server.baseUrl,
        protocol,
        getToken: ({ refresh }) => {
          asked.push(refresh);
          return refresh ? fresh : expired;
        },
      });
      expect((await refreshing.listProjects()).projects).toEqual([]);
      expect(asked).toEqual([false, true]);

      // A provider whose fresh token is refused too: the call fails after one refresh.
      asked.length = 0;
      const stale = createFolioClient({
        baseUrl: server.baseUrl,
        protocol,
        getToken: ({ refresh }) => {
          asked.push(refresh);
          return refresh ? `${expired}x` : expired;
        },
      });
      const error = await stale.listProjects().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect((error as FolioError).codeName).toBe("unauthenticated");
      expect(asked).toEqual([false, true]);
    },
  );
});

describe("@folio/client page iteration", () => {
  let server: TestServer;
  let token: string;
  const orgId = randomUUID();
  let ids: string[];

  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_ORG_REQUESTS: "0", RATE_LIMIT_TOKEN_REQUESTS: "0" });
    // Names repeat (every tenth), so pages also split runs of equal names: the order is name, then id.
    const rows = await server.sql<{ id: string }>(
      `INSERT INTO projects (org_id, name, city)
       SELECT $1::uuid, 'Project ' || lpad((n / 10)::text, 4, '0'), CASE WHEN n % 2 = 0 THEN 'Lyon' ELSE 'Turin' END
       FROM generate_series(1, 2500) AS n RETURNING id`,
      [orgId],
    );
    ids = rows.map((row) => row.id).sort();
    token = await server.issuer.sign({ org_id: orgId, sub: randomUUID(), scope: "project:read" }, {}, "1h");
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  it.each(["rest", "connect"] as const)(
    "returns each of 2,500 projects exactly once over %s",
    async (protocol) => {
      const client = createFolioClient({ baseUrl: server.baseUrl, token, protocol });
      for (const pageSize of [undefined, 97]) {
        const seen: string[] = [];
        for await (const project of client.projects(pageSize === undefined ? {} : { pageSize }))
          seen.push(project.id);
        expect(seen.length).toBe(2500);
        expect([...seen].sort()).toEqual(ids);
      }
      const lyon: string[] = [];
      for await (const project of client.projects({ city: "Lyon", pageSize: 300 }))
        lyon.push(project.city ?? "");
      expect(lyon.length).toBe(1250);
      expect(new Set(lyon)).toEqual(new Set(["Lyon"]));
    },
    120_000,
  );
});
