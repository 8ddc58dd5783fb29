import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { checkSessionTimeouts, sessionTimeouts } from "@folio/db";
import { FolderService, ProjectService } from "@folio/proto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../src/index.ts";
import { claimsOf, clusterUnavailable, newToken, rest } from "./support.ts";

const unavailable = clusterUnavailable();

describe.skipIf(unavailable !== undefined)(
  `three instances behind HAProxy, PgBouncer in transaction mode, Redis${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let cluster: Cluster;
    beforeAll(async () => {
      cluster = await startCluster({ instances: 3 });
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("serves REST over HTTP/1.1 and gRPC over h2c on HAProxy's one port, from every instance", async () => {
      const token = await newToken(cluster);
      const { org_id: orgId } = claimsOf(token);
      await cluster.sql(
        "INSERT INTO projects (org_id, name, city) VALUES ($1, 'Alpha', 'Bern'), ($1, 'Beta', NULL), ($1, 'Gamma', 'Chur')",
        [orgId],
      );

      const answeredRest = new Set<string | null>();
      for (let i = 0; i < 6; i++) {
        const reply = await rest(cluster, "GET", "/api/v1/projects", token);
        expect(reply.status).toBe(200);
        expect(reply.json.projects.map((p: { name: string }) => p.name)).toEqual(["Alpha", "Beta", "Gamma"]);
        answeredRest.add(reply.instance);
      }
      expect([...answeredRest].sort()).toEqual(["folio1", "folio2", "folio3"]);

      const transport = createGrpcTransport({ baseUrl: cluster.url });
      const projects = createClient(ProjectService, transport);
      const folders = createClient(FolderService, transport);
      const headers = { authorization: `Bearer ${token}` };
      const answeredGrpc = new Set<string | null>();
      const onHeader = (h: Headers) => answeredGrpc.add(h.get("x-folio-instance"));
      // A page token signed by one instance is honoured by the next (one PAGE_TOKEN_SECRET).
      let pageToken = "";
      const names: string[] = [];
      do {
        const page = await projects.listProjects({ pageSize: 1, pageToken }, { headers, onHeader });
        names.push(...page.projects.map((p) => p.name));
        pageToken = page.nextPageToken;
      } while (pageToken !== "");
      expect(names).toEqual(["Alpha", "Beta", "Gamma"]);
      const created = await folders.createFolder({ name: "Over gRPC" }, { headers, onHeader });
      expect(created.folder?.orgId).toBe(orgId);
      expect(answeredGrpc.size).toBeGreaterThanOrEqual(2);
    });

    it("gives one folder for one Idempotency-Key sent to every instance at once", async () => {
      const token = await newToken(cluster);
      const { org_id: orgId } = claimsOf(token);
      const key = randomUUID();
      const answered = new Set<string | null>();
      // Each client retries while another instance runs the first request (409 aborted,
      // REQUEST_IN_PROGRESS, Retry-After), as a client of the API is told to.
      const createWithRetries = async () => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const reply = await rest(cluster, "POST", "/api/v1/folders", token, {
            body: { name: "Invoices", color: "#1e90ff" },
            headers: { "idempotency-key": key },
          });
          answered.add(reply.instance);
          if (reply.status !== 409 || reply.json?.error?.details?.[0]?.reason !== "REQUEST_IN_PROGRESS")
            return reply;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error("still in progress after 50 attempts");
      };
      const replies = await Promise.all(Array.from({ length: 12 }, createWithRetries));

      expect(replies.map((reply) => reply.status)).toEqual(Array(12).fill(201));
      const ids = new Set(replies.map((reply) => reply.json.folder.id));
      expect(ids.size).toBe(1);
      expect([...answered].sort()).toEqual(["folio1", "folio2", "folio3"]);
      const rows = await cluster.sql("SELECT id FROM folders WHERE org_id = $1", [orgId]);
      expect(rows.map((row) => row.id)).toEqual([...ids]);
      const keys = await cluster.sql("SELECT count(*)::int AS n FROM idempotency_keys WHERE org_id = $1", [
        orgId,
      ]);
      expect(keys[0]?.n).toBe(1);
    });

    it("runs every query through PgBouncer in transaction pooling mode, with the timeouts set on the database", async () => {
      // Traffic of the tests above went through PgBouncer's pool of this database.
      const pools = await cluster.pgbouncer.admin("SHOW POOLS");
      const pool = pools.find((row) => row.database === cluster.database.name);
      expect(pool?.pool_mode).toBe("transaction");
      const stats = await cluster.pgbouncer.admin("SHOW STATS");
      const ours = stats.find((row) => row.database === cluster.database.name);
      expect(Number(ours?.total_xact_count)).toBeGreaterThan(20);

      // The three instances started at once; their migration runners met at the transaction-scoped
      // advisory lock, through PgBouncer, and each migration was applied exactly once.
      const migrations = await cluster.sql<{ migration_name: string; n: number; unfinished: number }>(
        `SELECT migration_name, count(*)::int AS n, count(*) FILTER (WHERE finished_at IS NULL)::int AS unfinished
           FROM _prisma_migrations GROUP BY migration_name`,
      );
      expect(migrations.length).toBeGreaterThan(0);
      for (const migration of migrations) expect(migration).toMatchObject({ n: 1, unfinished: 0 });

      // pg asks for statement_timeout and lock_timeout in the startup packet, which PgBouncer drops:
      // the database's own settings are what a connection through PgBouncer gets, and a server
      // asking for others would say so at start.
      const asked = sessionTimeouts({ statementTimeoutMs: 1234, lockTimeoutMs: 2000 });
      expect(await checkSessionTimeouts(cluster.pgbouncer.url, asked)).toEqual([
        { setting: "statement_timeout", askedMs: 1234, gotMs: 5000 },
      ]);
      // The instances ask for the defaults, which the cluster set on its database: no warning.
      for (const instance of cluster.instances) {
        expect(await readFile(instance.process.logFile, "utf8")).not.toMatch(/connection pooler/);
      }
    });

    it("serves through PgBouncer with prepared statements left on: they fall back to unnamed ones, with one warning", async () => {
      // The cluster turns them off (DATABASE_PREPARED_STATEMENTS=false), as docs/operations.md
      // says to behind PgBouncer 1.18; an instance that is not told keeps answering correctly.
      const instance = await cluster.restartInstance("folio3", { DATABASE_PREPARED_STATEMENTS: "true" });
      const token = await newToken(cluster);
      const { org_id: orgId } = claimsOf(token);
      await cluster.sql("INSERT INTO projects (org_id, name) VALUES ($1, 'Alpha'), ($1, 'Beta')", [orgId]);
      const warning = "the database does not keep prepared statements";
      let created = 0;
      // Concurrent calls spread the instance's connections over PgBouncer's server connections,
      // until one reaches a server connection that did not prepare its statement.
      for (let round = 0; round < 40 && !(await instance.process.tail(400)).includes(warning); round++) {
        const replies = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            i % 2 === 0
              ? rest(instance, "GET", "/api/v1/projects", token)
              : rest(instance, "POST", "/api/v1/folders", token, {
                  body: { name: `Prepared ${round}-${i}` },
                }),
          ),
        );
        for (const [i, reply] of replies.entries()) {
          if (i % 2 === 0) {
            expect(reply.status).toBe(200);
            expect(reply.json.projects.map((p: { name: string }) => p.name)).toEqual(["Alpha", "Beta"]);
          } else {
            expect(reply.status).toBe(201);
            created++;
          }
        }
      }
      const log = await instance.process.tail(400);
      expect(log.split(warning).length - 1).toBe(1);
      const rows = await cluster.sql<{ n: number }>(
        "SELECT count(*)::int AS n FROM folders WHERE org_id = $1",
        [orgId],
      );
      expect(rows[0]?.n).toBe(created);
    });

    it("stops cleanly: HAProxy, every instance, PgBouncer and Redis exit 0, and the database is dropped", async () => {
      const processes = [
        cluster.haproxy.process,
        ...cluster.instances.map((instance) => instance.process),
        cluster.pgbouncer.process,
        cluster.redis.process,
      ];
      await cluster.stop();
      for (const process of processes) {
        expect({ name: process.name, ...process.exit }).toEqual({
          name: process.name,
          code: 0,
          signal: null,
        });
      }
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [
          cluster.database.name,
        ]);
        expect(rows).toEqual([]);
      } finally {
        await admin.end();
      }
    });
  },
);
