import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../src/index.ts";
import { clusterUnavailable, newToken, rest } from "./support.ts";

const unavailable = clusterUnavailable();

describe.skipIf(unavailable !== undefined)(
  `rate limits shared by three instances through Redis${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let cluster: Cluster;
    beforeAll(async () => {
      cluster = await startCluster({
        instances: 3,
        env: {
          RATE_LIMIT_TOKEN_REQUESTS: "10",
          RATE_LIMIT_ORG_REQUESTS: "1000",
          RATE_LIMIT_WINDOW_SECONDS: "600",
        },
      });
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("holds the per-token limit across instances: the 11th request is refused, whichever instance gets it", async () => {
      const token = await newToken(cluster);
      const replies = [];
      for (let i = 0; i < 15; i++) replies.push(await rest(cluster, "GET", "/api/v1/projects", token));

      const allowed = replies.slice(0, 10);
      const refused = replies.slice(10);
      expect(allowed.map((reply) => reply.status)).toEqual(Array(10).fill(200));
      // One counter for the token, whichever instance counted: 9, 8, ..., 0 left.
      expect(allowed.map((reply) => reply.headers.get("ratelimit-remaining"))).toEqual([
        "9",
        "8",
        "7",
        "6",
        "5",
        "4",
        "3",
        "2",
        "1",
        "0",
      ]);
      expect(refused.map((reply) => reply.status)).toEqual(Array(5).fill(429));
      for (const reply of refused) {
        expect(reply.json.error.code).toBe("resource_exhausted");
        expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(new Set(allowed.map((reply) => reply.instance)).size).toBe(3);
      expect(new Set(refused.map((reply) => reply.instance)).size).toBe(3);

      // Another token has its own quota.
      const other = await newToken(cluster);
      expect((await rest(cluster, "GET", "/api/v1/projects", other)).status).toBe(200);
    });
  },
);
