// The bound of a shutdown, whatever the database does: a create waits for a lock that the test
// holds, with no statement or lock timeout to end it, and the process still exits by
// SHUTDOWN_GRACE_MS + SHUTDOWN_TIMEOUT_MS and a margin of 1 s after SIGTERM, its statement
// cancelled in the database. PostgreSQL only: PGlite has one session for every connection, so no
// lock can make a connection of the server wait there.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createClient } from "@connectrpc/connect";
import { FolderService } from "@folio/proto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTransport } from "./harness.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

const GRACE_MS = 1_000;
const TIMEOUT_MS = 3_000;
/** What the server allows itself after the drain's bound, to cancel, close and exit. */
const MARGIN_MS = 1_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Polls `read` until it resolves true. */
async function until(read: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error("gave up waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A session on the server's database holding `folders` in ACCESS EXCLUSIVE mode until released. */
async function lockFolders(server: ServerProcess) {
  const client = new pg.Client({ connectionString: server.database.url });
  await client.connect();
  await client.query("BEGIN");
  await client.query("LOCK TABLE folders IN ACCESS EXCLUSIVE MODE");
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await client.query("COMMIT");
    await client.end();
  };
  return {
    /** Sessions of the database, other than this one, waiting for a lock. */
    waiting: async () => {
      // In a transaction, which would otherwise see the activity of its first look.
      await client.query("SELECT pg_stat_clear_snapshot()");
      return Number(
        (
          await client.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'",
          )
        ).rows[0]?.n,
      );
    },
    release,
  };
}

describe.runIf(process.env.DATABASE_URL)("SIGTERM while a statement waits for a lock (PostgreSQL)", () => {
  it("exits within SHUTDOWN_GRACE_MS + SHUTDOWN_TIMEOUT_MS + 1 s, its statement cancelled", async ({
    annotate,
  }) => {
    const server = await startServerProcess({
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
      // Nothing in the database ends the wait: only the shutdown does.
      DATABASE_STATEMENT_TIMEOUT_MS: "0",
      DATABASE_LOCK_TIMEOUT_MS: "0",
    });
    cleanups.push(() => server.stop());
    const lock = await lockFolders(server);
    cleanups.push(() => lock.release());

    const folders = createClient(FolderService, createTransport("grpc", server.baseUrl));
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const created = folders
      .createFolder({ name: "Locked out" }, { headers: { authorization: `Bearer ${token}` } })
      .then(
        () => "created",
        () => "failed",
      );
    await until(async () => (await lock.waiting()) === 1);

    let exitedAt = 0;
    server.child.once("exit", () => {
      exitedAt = performance.now();
    });
    // After its output: every line it wrote has been read.
    const closed = once(server.child, "close");
    const signalledAt = performance.now();
    server.child.kill("SIGTERM");
    // Failing fast, not at the test's timeout, when it does not exit.
    const stillRunning = new Promise<string>((resolve) =>
      setTimeout(() => resolve("still running"), 3 * (GRACE_MS + TIMEOUT_MS + MARGIN_MS)).unref(),
    );
    expect(await Promise.race([server.exited, stillRunning])).toBe(0);
    await closed;
    const elapsedMs = exitedAt - signalledAt;
    await annotate(`exited ${Math.round(elapsedMs)} ms after SIGTERM`);
    expect(elapsedMs).toBeLessThan(GRACE_MS + TIMEOUT_MS + MARGIN_MS);
    // Not early either: the request had the grace period and the drain's timeout.
    expect(elapsedMs).toBeGreaterThanOrEqual(GRACE_MS + TIMEOUT_MS - 100);
    expect(await created).toBe("failed");

    expect(server.lines.find((line) => line.cutConnections !== undefined)).toMatchObject({
      cutConnections: 1,
    });
    expect(server.lines.find((line) => line.cancelledStatements !== undefined)).toMatchObject({
      cancelledStatements: 1,
    });
    // Last (by its time: pino's writes in flight at the exit can reach the pipe out of order).
    const stopped = server.lines.find((line) => line.msg === "stopped");
    const at = (line: Record<string, unknown> | undefined) => Date.parse(String(line?.time));
    expect(at(stopped)).toBe(Math.max(...server.lines.map(at)));

    // Cancelled, not left waiting: once the lock is released, nothing of the create commits.
    expect(await lock.waiting()).toBe(0);
    await lock.release();
    const check = new pg.Client({ connectionString: server.database.url });
    await check.connect();
    try {
      const { rows } = await check.query<{ n: number }>("SELECT count(*)::int AS n FROM folders");
      expect(rows[0]?.n).toBe(0);
    } finally {
      await check.end();
    }
  }, 120_000);
});
