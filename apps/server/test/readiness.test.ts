// Readiness's rules for a primary that cannot write or cannot be reached, on a database whose
// answers the test sets (the real ones are in read-only-database.test.ts and the Patroni tests of
// tooling/local-cluster): read-only past a grace period is not ready; unreachable is not ready
// unless a replica answers (listings fall back to it, whatever its lag).
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { monitorReadiness, type ReadinessState } from "../src/health/readiness.js";

/** A primary whose writability and reachability the test sets, and a replica that answers or not. */
function database() {
  const state = { writable: true, reachable: true, replicaAnswers: false, replicaHangs: false };
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
      replicaAnswers: () =>
        state.replicaHangs ? new Promise<boolean>(() => {}) : Promise.resolve(state.replicaAnswers),
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

  it("stays ready while the primary is unreachable and a replica answers, not otherwise", async () => {
    const { state, db } = database();
    const readiness = monitorReadiness({
      db,
      logger: pino({ level: "silent" }),
      intervalMs: 60_000,
      timeoutMs: 200,
    });
    try {
      expect(await readiness.check()).toBe("ready");
      state.reachable = false;
      state.replicaAnswers = true;
      expect(await readiness.check()).toBe("ready");
      state.replicaAnswers = false;
      expect(await readiness.check()).toBe("database-unreachable");
      // Not ready stays so while a replica answers: a ready instance is one that was ready before.
      state.replicaAnswers = true;
      expect(await readiness.check()).toBe("database-unreachable");
      state.reachable = true;
      expect(await readiness.check()).toBe("ready");
      // A replica that does not answer within the check's bound counts as none.
      state.reachable = false;
      state.replicaHangs = true;
      expect(await readiness.check()).toBe("database-unreachable");
    } finally {
      readiness.stop();
    }
  });

  it("is not ready while no token can be verified (no usable signing keys), and ready again once one can", async () => {
    const { state, db } = database();
    let keys = false;
    const readiness = monitorReadiness({
      db,
      logger: pino({ level: "silent" }),
      intervalMs: 60_000,
      signingKeysAvailable: () => keys,
    });
    try {
      expect(await readiness.check()).toBe("signing-keys-unavailable");
      keys = true;
      expect(await readiness.check()).toBe("ready");
      // The database's reason comes first: it is the one to fix before any call can succeed.
      keys = false;
      state.reachable = false;
      expect(await readiness.check()).toBe("database-unreachable");
    } finally {
      readiness.stop();
    }
  });
});
