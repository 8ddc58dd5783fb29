// The cluster CLI run as a user runs it, with every process it starts tracked.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDir } from "@folio/test-support/temp-dir";
import pg from "pg";
import { waitFor } from "../src/index.ts";
import { trackProcesses } from "./process-tree.ts";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The last line the CLI prints once the cluster is up. */
export const READY_LINE = "stops the cluster.";

/** A running CLI. */
export interface CliRun {
  /** Its TMPDIR, where its run directory goes. */
  readonly tmpDir: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every process of it seen so far: the CLI (and pnpm), its children, their children. */
  readonly processes: ReturnType<typeof trackProcesses>;
  output(): string;
  /** The database it printed it made on DATABASE_URL's server (not with --ha). */
  database(): string | undefined;
  signal(signal: NodeJS.Signals): void;
  /** Waits until `text` is printed; fails at once if it exits before. */
  waitForOutput(text: string, timeoutMs: number): Promise<void>;
  /** After a failed test: kills whatever of it still runs, removes its files and drops its database. */
  cleanUp(): Promise<void>;
}

/**
 * Starts `node src/cli.ts <args>`, or with `viaPnpm` the package's `pnpm run cluster <args>` (pnpm
 * between the caller and the CLI, as `pnpm cluster` puts it).
 */
export async function startCli(
  args: readonly string[],
  options: { viaPnpm?: boolean } = {},
): Promise<CliRun> {
  const tmpDir = await mkdtemp(join(tmpdir(), "folio-cli-test-"));
  // PgBouncer (as nobody) and PostgreSQL (as postgres) pass through it to the run directory.
  await chmod(tmpDir, 0o755);
  const [command, commandArgs] = options.viaPnpm
    ? ["pnpm", ["run", "--silent", "cluster", ...args]]
    : [process.execPath, ["src/cli.ts", ...args]];
  const child: ChildProcess = spawn(command, commandArgs, {
    cwd: PACKAGE_DIR,
    env: { ...process.env, TMPDIR: tmpDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const pid = child.pid ?? -1;
  // PostgreSQL under Patroni (--ha) runs detached from it: found by its data directories' pid files.
  const processes = trackProcesses(() => [pid, ...postmasters(tmpDir)]);
  void exited.then(() => processes.stop());
  return {
    tmpDir,
    exited,
    processes,
    output: () => output,
    database: () => printedDatabase(output),
    signal(signal) {
      child.kill(signal);
    },
    async waitForOutput(text, timeoutMs) {
      await waitFor(`"${text}" printed`, () => (output.includes(text) ? true : undefined), {
        timeoutMs,
        intervalMs: 200,
        abort: () =>
          child.exitCode === null && child.signalCode === null ? undefined : `it exited:\n${output}`,
      });
    },
    async cleanUp() {
      for (const info of processes.running()) {
        try {
          process.kill(info.pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
      processes.stop();
      await removeTempDir(tmpDir);
      const database = printedDatabase(output);
      if (database !== undefined) await dropDatabase(database);
    },
  };
}

function printedDatabase(output: string): string | undefined {
  return /^PostgreSQL database: \S+\/(folio_cluster_[0-9a-f]+)$/m.exec(output)?.[1];
}

async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    // folio_cluster_ and hex digits (printedDatabase): nothing to quote.
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * The postmasters of the --ha clusters under `tmpDir`: the pids of their postmaster.pid files, when
 * that process runs on that data directory.
 */
function postmasters(tmpDir: string): number[] {
  const dataDirs = readdirIfAny(tmpDir)
    .filter((name) => name.startsWith("folio-ha-cluster-"))
    .flatMap((runDir) => ["pg1", "pg2", "pg3"].map((node) => join(tmpDir, runDir, "pg", node)));
  return dataDirs.flatMap((dataDir) => {
    const pid = Number(readIfAny(join(dataDir, "postmaster.pid")).split("\n")[0]);
    if (!Number.isInteger(pid) || pid <= 0) return [];
    return readIfAny(`/proc/${pid}/cmdline`).split("\0").includes(dataDir) ? [pid] : [];
  });
}

function readdirIfAny(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readIfAny(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
