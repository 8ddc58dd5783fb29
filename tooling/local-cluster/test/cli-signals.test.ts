// `pnpm cluster` stopped as a supervisor or a terminal stops it: on SIGTERM or SIGHUP, also while
// it is still starting, no process it started outlives it, its database and files are gone, and it
// ends by the signal it got.
import { readdirSync } from "node:fs";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../src/index.ts";
import { type CliRun, READY_LINE, startCli } from "./cli-run.ts";
import { clusterUnavailable, haClusterUnavailable } from "./support.ts";

const unavailable = clusterUnavailable();
const haUnavailable = unavailable ?? haClusterUnavailable();

let cli: CliRun | undefined;
afterEach(async () => {
  await cli?.cleanUp();
  cli = undefined;
});

/**
 * Sends `signal` (unless `signalled` already) and checks that the CLI ended by it, leaving no
 * process and no file behind.
 */
async function stopsEverything(
  run: CliRun,
  signal: NodeJS.Signals,
  options: { signalled?: boolean } = {},
): Promise<void> {
  if (!options.signalled) run.signal(signal);
  expect(await run.exited, run.output()).toEqual({ code: null, signal });
  expect(run.output()).toMatch(/^stopped$/m);
  // The CLI waited for its children; PostgreSQL under Patroni is stopped by it too.
  await expect.poll(() => run.processes.running().map((info) => info.command)).toEqual([]);
  // Its run directory (folio-cluster-*); pnpm keeps a compile cache there too.
  expect(readdirSync(run.tmpDir).filter((name) => name.startsWith("folio-"))).toEqual([]);
}

/** The commands of every process the CLI started so far. */
function commands(run: CliRun): string[] {
  return run.processes.seen.map((info) => info.command);
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

const everyProgram = [
  expect.stringContaining("redis-server"),
  expect.stringContaining("pgbouncer"),
  expect.stringContaining("haproxy"),
  expect.stringContaining("apps/server/dist/main.js"),
];

describe.skipIf(unavailable !== undefined)(
  `the cluster CLI stopped by a signal${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    it("stops everything on SIGTERM sent to pnpm, drops the database, and ends by SIGTERM", async () => {
      cli = await startCli(["--instances", "2"], { viaPnpm: true });
      await cli.waitForOutput(READY_LINE, 120_000);
      expect(commands(cli)).toEqual(expect.arrayContaining(everyProgram));
      const database = cli.database();
      expect(database).toBeDefined();

      await stopsEverything(cli, "SIGTERM");
      expect(await databaseExists(database as string)).toBe(false);
    }, 180_000);

    it("stops everything on SIGHUP, as when its terminal closes", async () => {
      cli = await startCli(["--instances", "2"]);
      await cli.waitForOutput(READY_LINE, 120_000);
      expect(commands(cli)).toEqual(expect.arrayContaining(everyProgram));

      await stopsEverything(cli, "SIGHUP");
    }, 180_000);

    it("kills what is left at a second signal, still dropping the database", async () => {
      const run = await startCli(["--instances", "2"]);
      cli = run;
      await run.waitForOutput(READY_LINE, 120_000);
      const database = run.database();

      run.signal("SIGTERM");
      await run.waitForOutput("SIGTERM: stopping", 10_000);
      // The instances drain for seconds (SHUTDOWN_GRACE_MS): the second signal comes meanwhile.
      const draining = run.processes.running().filter((info) => info.command.includes("dist/main.js"));
      expect(draining).toHaveLength(2);
      run.signal("SIGINT");
      await run.waitForOutput("hurried by SIGINT: killing what is left", 10_000);

      await stopsEverything(run, "SIGTERM", { signalled: true });
      expect(await databaseExists(database as string)).toBe(false);
    }, 180_000);

    it("stops what it has started when SIGTERM comes while it starts", async () => {
      const run = await startCli(["--instances", "2"]);
      cli = run;
      // Redis and PgBouncer are up, the instances starting, HAProxy not yet there.
      await waitFor(
        "a Folio instance starting",
        () => (commands(run).some((command) => command.includes("dist/main.js")) ? true : undefined),
        { timeoutMs: 120_000, abort: () => (run.processes.running().length === 0 ? "it exited" : undefined) },
      );

      await stopsEverything(run, "SIGTERM");
      expect(run.output()).not.toContain(READY_LINE);
      expect(commands(run)).toEqual(
        expect.arrayContaining([
          expect.stringContaining("redis-server"),
          expect.stringContaining("pgbouncer"),
        ]),
      );
    }, 180_000);
  },
);

describe.skipIf(haUnavailable !== undefined)(
  `the --ha cluster CLI stopped by a signal${haUnavailable ? ` (skipped: ${haUnavailable})` : ""}`,
  () => {
    it("stops everything on SIGTERM, Patroni's PostgreSQL and etcd included", async () => {
      cli = await startCli(["--ha"]);
      await cli.waitForOutput(READY_LINE, 240_000);
      expect(commands(cli)).toEqual(
        expect.arrayContaining([
          expect.stringContaining("etcd"),
          expect.stringContaining("patroni"),
          expect.stringMatching(/postgres -D /),
          expect.stringContaining("apps/server/dist/main.js"),
        ]),
      );

      await stopsEverything(cli, "SIGTERM");
    }, 360_000);
  },
);
