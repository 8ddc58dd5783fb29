import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster, waitFor } from "../src/index.ts";
import { claimsOf, clusterUnavailable, newToken, type Reply, rest } from "./support.ts";

const unavailable = clusterUnavailable();

/** One create a client wants done: a name of its own, and an Idempotency-Key for two in three. */
interface Create {
  readonly name: string;
  readonly key: string | undefined;
  /** Every response it got, retries included. */
  readonly replies: Reply[];
  /** The folder of its 201, if it got one. */
  id?: string;
}

describe.skipIf(unavailable !== undefined)(
  `an instance stopped under load${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let cluster: Cluster;
    beforeAll(async () => {
      cluster = await startCluster({ instances: 3 });
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("loses no acknowledged create, and HAProxy stops sending it traffic", async () => {
      const victim = cluster.instances[1];
      if (victim === undefined) throw new Error("no second instance");
      const clients = 12;
      const tokens = await Promise.all(Array.from({ length: clients }, () => newToken(cluster)));
      const creates: Create[] = [];
      let stopLoad = false;
      let downSince: number | undefined;
      const afterDown: Reply[] = [];

      // Each client creates folders one after another. A create with a key is retried with the
      // same key and body until it is acknowledged, as the API tells clients to; one without a key
      // is not retried (a failed one may or may not have been written).
      const client = async (i: number) => {
        const token = tokens[i] as string;
        for (let n = 0; !stopLoad; n++) {
          const create: Create = {
            name: `c${i}-${n}`,
            key: n % 3 === 2 ? undefined : randomUUID(),
            replies: [],
          };
          creates.push(create);
          for (let attempt = 0; attempt < 20; attempt++) {
            // Only requests sent once HAProxy has marked the instance DOWN must avoid it: one sent
            // just before may still be answered by it (it drains what it was given).
            const sentAfterDown = downSince !== undefined;
            const reply = await rest(cluster, "POST", "/api/v1/folders", token, {
              body: { name: create.name },
              headers: create.key === undefined ? {} : { "idempotency-key": create.key },
            }).catch(
              (error: Error): Reply => ({
                status: 0,
                headers: new Headers(),
                json: `${error.message}: ${(error.cause as Error)?.message}`,
                instance: null,
              }),
            );
            create.replies.push(reply);
            if (sentAfterDown) afterDown.push(reply);
            if (reply.status === 201) {
              create.id = reply.json.folder.id;
              break;
            }
            if (create.key === undefined) break;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      };
      const load = Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
      const answeredBy = (name: string) =>
        creates.filter((create) => create.replies.some((reply) => reply.instance === name)).length;

      // Under load, every instance serving; then the orchestrator's SIGTERM to one of them.
      await waitFor("every instance serving creates", () =>
        cluster.instances.every((instance) => answeredBy(instance.name) >= 10) ? true : undefined,
      );
      const stopped = victim.stop();
      await waitFor("HAProxy marking the stopped instance DOWN", async () =>
        (await cluster.haproxy.serverStats()).get(victim.name)?.status.startsWith("DOWN") ? true : undefined,
      );
      downSince = performance.now();
      const exit = await stopped;
      // Load goes on over the other two for a while.
      await waitFor("50 more creates after the failover", () => (afterDown.length >= 50 ? true : undefined));
      stopLoad = true;
      await load;

      expect(exit).toEqual({ code: 0, signal: null });
      expect(afterDown.every((reply) => reply.instance !== victim.name)).toBe(true);
      expect(afterDown.filter((reply) => reply.status !== 201)).toEqual([]);
      const stats = await cluster.haproxy.serverStats();
      expect(stats.get(victim.name)?.status).toMatch(/^DOWN/);
      // HAProxy's Prometheus exporter says the same (the "Instances not ready" alert counts it).
      const exported = await (await fetch(new URL("metrics", cluster.haproxy.statsUrl))).text();
      const up = (server: string) =>
        new RegExp(
          `^haproxy_server_status\\{proxy="folio",server="${server}",state="UP"\\} (\\d+)$`,
          "m",
        ).exec(exported)?.[1];
      expect(up(victim.name)).toBe("0");
      for (const instance of cluster.instances.filter((i) => i !== victim))
        expect(up(instance.name)).toBe("1");

      // Every acknowledged create is in the database exactly once, under the id it was answered with.
      const orgIds = tokens.map((token) => claimsOf(token).org_id);
      const rows = await cluster.sql<{ name: string; id: string }>(
        "SELECT name, id FROM folders WHERE org_id = ANY($1::uuid[])",
        [orgIds],
      );
      const byName = new Map<string, string[]>();
      for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row.id]);
      const acknowledged = creates.filter((create) => create.id !== undefined);
      for (const create of acknowledged)
        expect({ name: create.name, ids: byName.get(create.name) }).toEqual({
          name: create.name,
          ids: [create.id],
        });
      // Creates with a key all ended acknowledged; one without a key that failed may exist or not.
      expect(creates.filter((create) => create.key !== undefined && create.id === undefined)).toEqual([]);
      const unacknowledged = creates.filter((create) => create.id === undefined);
      expect(rows.length - acknowledged.length).toBeLessThanOrEqual(unacknowledged.length);
      expect(acknowledged.length).toBeGreaterThan(50);
      console.info(
        `${creates.length} creates (${acknowledged.length} acknowledged); responses other than 201: ${JSON.stringify(
          creates.flatMap((create) =>
            create.replies
              .filter((reply) => reply.status !== 201)
              .map((reply) => `${reply.status} ${reply.instance} ${reply.status === 0 ? reply.json : ""}`),
          ),
        )}`,
      );
    });
  },
);
