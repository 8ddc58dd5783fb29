// Readiness's rules for a primary that cannot write or cannot be reached, on a database whose
// answers the test sets (the real ones are in read-only-database.test.ts and the Patroni tests of
// tooling/local-cluster): read-only past a grace period is not ready; unreachable is not ready
// unless listings are being served by replicas.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { monitorReadiness, type ReadinessState } from "../src/health/readiness.js";

/** A primary whose writability and reachability the test sets, and a read route. */
function database() {
  const state = { writable: true, reachable: true, route: "primary" as "primary" | "replica" };
  return {
    state,
    db: {
      writable: async () => {
        if (!state.reachable) throw new Error("unreachable");
        return state.writable;
      },
      pendingMigrations: async () => {
        if (!state.reachable) throw new Error("unreachable");
        return [];
      },
      readRoute: () => state.route,
    },
  };
}

async function until(
  read: () => ReadinessState,
  expected: ReadinessState,
  timeoutMs = 5_000,
): Promise<number> {
  const started = Date.now();
  while (read() !== expected) {
    if (Date.now() - started > timeoutMs) throw new Error(`still ${read()}, expected ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describe("readiness", () => {
  it("turns not ready once the primary has been read-only for the grace period, and ready when it can write", async () => {
    const { state, db } = database();
    const readiness = monitorReadiness({
      db,
      logger: pino({ level: "silent" }),
      intervalMs: 20,
      readOnlyGraceMs: 300,
    });
    try {
      expect(await readiness.check()).toBe("ready");
      state.writable = false;
      const waited = await until(() => readiness.state, "database-read-only");
      expect(waited).toBeGreaterThanOrEqual(250);
      state.writable = true;
      await until(() => readiness.state, "ready");
    } finally {
      readiness.stop();
    }
  });

  it("stays ready while the primary is unreachable and listings are served by replicas, not otherwise", async () => {
    const { state, db } = database();
    const readiness = monitorReadiness({ db, logger: pino({ level: "silent" }), intervalMs: 20 });
    try {
      expect(await readiness.check()).toBe("ready");
      state.reachable = false;
      state.route = "replica";
      expect(await readiness.check()).toBe("ready");
      state.route = "primary";
      expect(await readiness.check()).toBe("database-unreachable");
      // Not ready stays so while the replicas serve: a ready instance is one that was ready before.
      state.route = "replica";
      expect(await readiness.check()).toBe("database-unreachable");
      state.reachable = true;
      expect(await readiness.check()).toBe("ready");
    } finally {
      readiness.stop();
    }
  });
});
