// The highly available PostgreSQL under a running Folio: three nodes under Patroni, HAProxy's
// primary port as DATABASE_URL and its replica port as DATABASE_READ_URL, two instances behind
// the front HAProxy, 16 clients of creates (each with an Idempotency-Key) and lists. A planned
// switchover; a route that still reaches the demoted primary; then kill -9 of the leader's
// postmaster and Patroni. Every failure a client sees is 503 `unavailable` with Retry-After, the
// lists are answered by the replicas while the primary fails over, and every acknowledged create
// is stored exactly once. Runs once, in the suite's PostgreSQL pass (see haClusterUnavailable).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFolioInstance } from "../src/folio-instance.ts";
import type { FolioInstance, HaCluster } from "../src/index.ts";
import { startHaCluster, waitFor } from "../src/index.ts";
import { type MixedLoad, type Sample, sentBetween, startMixedLoad } from "./mixed-load.ts";
import { openRoute, type Route } from "./stale-route.ts";
import { claimsOf, haClusterUnavailable, newToken, rest } from "./support.ts";

const unavailable = haClusterUnavailable();

/** What a client saw around one event (switchover, failover). */
interface Outage {
  /** From the event until the last create that was refused was sent. */
  readonly createsRefusedMs: number;
  readonly refused: number;
  readonly listsDuring: number;
  readonly listsAnswered: number;
  /** The slowest answer to a request sent after the event. */
  readonly slowestMs: number;
  /** Answers other than 200, 201 and 503 `unavailable` with Retry-After. */
  readonly unexpected: Sample[];
}

describe.skipIf(unavailable !== undefined)(
  `highly available PostgreSQL (Patroni)${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let cluster: HaCluster;
    let route: Route | undefined;
    let routed: FolioInstance | undefined;
    let tokens: string[];

    beforeAll(async () => {
      cluster = await startHaCluster({
        instances: 2,
        keepFiles: process.env.FOLIO_KEEP_CLUSTER_FILES === "1",
        env: {
          RATE_LIMIT_ORG_REQUESTS: "0",
          RATE_LIMIT_TOKEN_REQUESTS: "0",
          DATABASE_ACQUIRE_TIMEOUT_MS: "3000",
          LOG_LEVEL: "warn",
        },
      });
      tokens = await Promise.all(Array.from({ length: 8 }, () => newToken(cluster)));
      for (const token of tokens) {
        await cluster.sql(
          "INSERT INTO projects (org_id, name) SELECT $1::uuid, 'Project ' || g FROM generate_series(1, 25) AS g",
          [claimsOf(token).org_id],
        );
      }
    }, 240_000);

    afterAll(async () => {
      await routed?.stop();
      await route?.close();
      await cluster?.stop();
    }, 120_000);

    /** Runs the mixed load around `event` until creates are acknowledged again, and tells what clients saw. */
    async function underLoad(
      event: () => Promise<void>,
    ): Promise<{ load: MixedLoad; outage: Outage; at: number }> {
      const load = startMixedLoad(cluster, tokens, { creators: 8, listers: 8 });
      const acknowledged = () => load.creates.filter((create) => create.ids.length > 0).length;
      await waitFor("40 creates acknowledged before the event", () =>
        acknowledged() >= 40 ? true : undefined,
      );
      const at = performance.now();
      await event();
      await waitFor(
        "30 creates sent after the event acknowledged",
        () =>
          sentBetween(load.samples, "create", at, Number.POSITIVE_INFINITY).filter((s) => s.status === 201)
            .length >= 30
            ? true
            : undefined,
        { timeoutMs: 60_000 },
      );
      await load.stop();
      const after = load.samples.filter((sample) => sample.sentAt >= at);
      const refused = after.filter((sample) => sample.kind === "create" && sample.status !== 201);
      const lastRefused = Math.max(at, ...refused.map((sample) => sample.sentAt));
      const lists = sentBetween(load.samples, "list", at, lastRefused);
      return {
        load,
        at,
        outage: {
          createsRefusedMs: Math.round(lastRefused - at),
          refused: refused.length,
          listsDuring: lists.length,
          listsAnswered: lists.filter((sample) => sample.status === 200).length,
          slowestMs: Math.round(Math.max(0, ...after.map((sample) => sample.doneAt - sample.sentAt))),
          unexpected: after.filter(
            (sample) =>
              !(sample.status === 200 || sample.status === 201) &&
              !(sample.status === 503 && sample.code === "unavailable" && Number(sample.retryAfter) > 0),
          ),
        },
      };
    }

    /** Every create was acknowledged once, and is stored exactly once under that id. */
    async function expectStoredOnce(load: MixedLoad): Promise<void> {
      expect(load.creates.filter((create) => create.ids.length !== 1)).toEqual([]);
      const rows = await cluster.sql<{ name: string; id: string }>(
        "SELECT name, id FROM folders WHERE name = ANY($1::text[])",
        [load.creates.map((create) => create.name)],
      );
      const byName = new Map<string, string[]>();
      for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row.id]);
      const wrong = load.creates.filter(
        (create) => JSON.stringify(byName.get(create.name)) !== JSON.stringify(create.ids),
      );
      expect(
        wrong.map((create) => ({
          name: create.name,
          acknowledged: create.ids,
          stored: byName.get(create.name),
        })),
      ).toEqual([]);
    }

    it("serves through a planned switchover: only 503s, lists answered, every create stored once", async () => {
      // An instance outside the load balancer whose route (an address an operator controls)
      // points at today's leader: the next test moves the leader away from under it.
      const leader = await cluster.postgres.leader();
      route = await openRoute(leader.pgPort);
      routed = await startFolioInstance({
        name: "folio-routed",
        dir: cluster.dir,
        env: {
          ...cluster.instanceEnv("folio-routed"),
          DATABASE_URL: `postgresql://postgres@127.0.0.1:${route.port}/${cluster.databaseName}`,
          DATABASE_READ_URL: "",
        },
      });
      let switched: { from: string; to: string } | undefined;
      let newLeaderMs = 0;
      const { load, outage } = await underLoad(async () => {
        const askedAt = performance.now();
        switched = await cluster.postgres.switchover();
        newLeaderMs = Math.round(performance.now() - askedAt);
      });
      console.info(
        `switchover ${JSON.stringify(switched)}: new leader after ${newLeaderMs} ms; ${JSON.stringify({ ...outage, unexpected: outage.unexpected.length })}`,
      );
      expect(switched?.from).toBe(leader.name);
      expect(outage.unexpected).toEqual([]);
      expect(outage.createsRefusedMs).toBeLessThan(15_000);
      expect(outage.listsAnswered).toBeGreaterThanOrEqual(Math.ceil(outage.listsDuring * 0.95));
      // No hang: every answer within the acquire timeout plus slack for a busy machine.
      expect(outage.slowestMs).toBeLessThan(10_000);
      await expectStoredOnce(load);
    }, 180_000);

    it("a route that still reaches the demoted primary: 503 unavailable and not ready, until it reaches the new one", async () => {
      if (routed === undefined || route === undefined)
        throw new Error("the switchover test sets the route up");
      const instance = routed;
      const token = tokens[0] as string;
      const create = (name: string) =>
        rest({ url: instance.url }, "POST", "/api/v1/folders", token, { body: { name } });
      const readyz = async () => (await fetch(`${instance.url}/readyz`)).status;
      // gRPC health's Check, called with the Connect protocol's JSON as any client may.
      const health = async () => {
        const response = await fetch(`${instance.url}/grpc.health.v1.Health/Check`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        return ((await response.json()) as { status: string }).status;
      };

      const refused = await waitFor("a create refused as read-only", async () => {
        const reply = await create(`stale ${Date.now()}`);
        return reply.status === 503 && /read-only/.test(reply.json?.error?.message ?? "") ? reply : undefined;
      });
      expect(refused.json.error.code).toBe("unavailable");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Not ready for that reason (the switchover's restart of the node may have been seen first).
      const notReady = await waitFor(
        "not ready: read-only",
        async () => {
          const response = await fetch(`${instance.url}/readyz`);
          const body = (await response.json()) as { reason?: string };
          return response.status === 503 && body.reason === "database-read-only" ? body : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(notReady).toEqual({ status: "not ready", reason: "database-read-only" });
      expect(await health()).toBe("NOT_SERVING");
      for (let i = 0; i < 3; i++) expect((await create(`stale ${i}`)).status).toBe(503);
      expect(await cluster.sql("SELECT id FROM folders WHERE name LIKE 'stale %'")).toEqual([]);

      // The operator points the route at the new leader: ready again, and creates succeed.
      route.pointAt((await cluster.postgres.leader()).pgPort);
      await waitFor("ready again", async () => ((await readyz()) === 200 ? true : undefined), {
        timeoutMs: 20_000,
      });
      expect(await health()).toBe("SERVING");
      const created = await waitFor(
        "a create acknowledged",
        async () => {
          const reply = await create(`routed ${Date.now()}`);
          return reply.status === 201 ? reply : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(created.json.folder.id).toMatch(/^[0-9a-f-]{36}$/);
    }, 120_000);

    it("fails over when the leader's postmaster and Patroni are killed: only 503s, lists served by replicas, every create stored once", async () => {
      await cluster.postgres.waitHealthy(2);
      const leader = await cluster.postgres.leader();
      let newLeaderMs = 0;
      const { load, outage, at } = await underLoad(async () => {
        const killedAt = performance.now();
        await leader.kill();
        const next = await waitFor(
          "a new leader",
          async () => {
            const member = (await cluster.postgres.members()).find(
              (m) => m.role === "leader" && m.state === "running",
            );
            return member !== undefined && member.name !== leader.name ? member.name : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 200 },
        );
        newLeaderMs = Math.round(performance.now() - killedAt);
        expect(next).not.toBe(leader.name);
      });
      console.info(
        `failover from ${leader.name}: new leader after ${newLeaderMs} ms; ${JSON.stringify({ ...outage, unexpected: outage.unexpected.length })}`,
      );
      // Folio stayed up and in the load balancer.
      for (const instance of cluster.instances) {
        expect(instance.process.exit, await instance.process.tail(30)).toBeUndefined();
      }
      expect(outage.unexpected).toEqual([]);
      expect(outage.createsRefusedMs).toBeLessThan(15_000);
      expect(outage.listsDuring).toBeGreaterThan(20);
      expect(outage.slowestMs).toBeLessThan(10_000);
      expect(outage.listsAnswered).toBeGreaterThanOrEqual(Math.ceil(outage.listsDuring * 0.95));
      await expectStoredOnce(load);
      // A create that was refused, sent again with its key, gives the folder it was acknowledged with.
      const retried = load.creates.filter((create) => create.refused).slice(0, 20);
      for (const create of retried) {
        const reply = await rest(cluster, "POST", "/api/v1/folders", create.token, {
          body: { name: create.name },
          headers: { "idempotency-key": create.key },
        });
        expect({ status: reply.status, id: reply.json.folder?.id }).toEqual({
          status: 201,
          id: create.ids[0],
        });
      }
      expect(at).toBeGreaterThan(0);
    }, 240_000);
  },
);
