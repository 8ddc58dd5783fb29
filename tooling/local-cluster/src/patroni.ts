import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Supervised, type Supervision, startSupervised } from "./supervised.ts";
import { renderTemplate } from "./template.ts";
import { waitFor } from "./wait.ts";

/** A PostgreSQL node run by Patroni. */
export interface PatroniNode {
  readonly name: string;
  readonly pgPort: number;
  readonly restPort: number;
  /** Patroni's REST API: GET /patroni, /primary, /replica, /cluster; POST /switchover. */
  readonly restUrl: string;
  readonly dataDir: string;
  readonly process: Supervised;
  /** Kills Patroni and the postmaster with SIGKILL at once, as a crash of the machine's services would. */
  kill(): Promise<void>;
  /**
   * SIGTERM: Patroni stops PostgreSQL (releasing the leader key if it holds it) and exits; a
   * postmaster still running then (Patroni was killed) gets an immediate shutdown.
   */
  stop(): Promise<void>;
}

/** Options of {@link startPatroniNode}. */
export interface PatroniNodeOptions extends Pick<Supervision, "kill" | "detached"> {
  readonly binary: string;
  readonly name: string;
  /** Logs and configuration. */
  readonly dir: string;
  /** Owned by the `postgres` user: data directories, sockets, pgpass files. */
  readonly pgDir: string;
  readonly binDir: string;
  readonly etcdPort: number;
  readonly pgPort: number;
  readonly restPort: number;
  /** The `postgres` OS user: PostgreSQL refuses to run as root. */
  readonly uid: number;
  readonly gid: number;
}

/** Writes the node's patroni.yml from the template and starts Patroni as `postgres`. */
export async function startPatroniNode(options: PatroniNodeOptions): Promise<PatroniNode> {
  const dataDir = join(options.pgDir, options.name);
  // Where the `postgres` user can read it.
  const config = join(options.pgDir, `patroni-${options.name}.yml`);
  await writeFile(
    config,
    await renderTemplate("patroni.yml", {
      NAME: options.name,
      REST_PORT: options.restPort,
      ETCD_PORT: options.etcdPort,
      PG_PORT: options.pgPort,
      DATA_DIR: dataDir,
      BIN_DIR: options.binDir,
      RUN_DIR: options.pgDir,
    }),
  );
  const child = startSupervised(
    `patroni-${options.name}`,
    options.binary,
    [config],
    join(options.dir, `patroni-${options.name}.log`),
    {
      uid: options.uid,
      gid: options.gid,
      cwd: options.pgDir,
      env: { PATH: process.env.PATH ?? "", HOME: options.pgDir, LANG: "C.UTF-8" },
      kill: options.kill,
      detached: options.detached,
    },
  );
  // PostgreSQL runs detached from Patroni (it outlives it): killing Patroni leaves it running.
  // Patroni is killed first (above), so that it does not start PostgreSQL again.
  options.kill?.addEventListener("abort", () => void endPostmaster(dataDir), { once: true });
  return {
    name: options.name,
    pgPort: options.pgPort,
    restPort: options.restPort,
    restUrl: `http://127.0.0.1:${options.restPort}`,
    dataDir,
    process: child,
    async kill() {
      const postmaster = await postmasterPid(dataDir);
      child.signal("SIGKILL");
      if (postmaster !== undefined) {
        try {
          process.kill(postmaster, "SIGKILL");
        } catch {
          // already gone
        }
      }
      await child.exited;
    },
    async stop() {
      await child.stop("SIGTERM", 30_000);
      await endPostmaster(dataDir);
    },
  };
}

/**
 * Ends the postmaster running on `dataDir`, if any, with PostgreSQL's immediate shutdown (SIGQUIT:
 * it ends its backends before exiting), then SIGKILL if it lingers. Never rejects.
 */
async function endPostmaster(dataDir: string): Promise<void> {
  const pid = await runningPostmaster(dataDir);
  if (pid === undefined) return;
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  };
  send("SIGQUIT");
  await waitFor(
    `the postmaster of ${dataDir} gone`,
    async () => ((await runningPostmaster(dataDir)) === pid ? undefined : true),
    { timeoutMs: 10_000 },
  ).catch(() => send("SIGKILL"));
}

/**
 * The pid of the postmaster serving `dataDir`: postmaster.pid's, when that process runs with this
 * data directory (after a crash the file stays, and its pid may have been reused; a zombie has no
 * command line).
 */
async function runningPostmaster(dataDir: string): Promise<number | undefined> {
  const pid = await postmasterPid(dataDir);
  if (pid === undefined) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return cmdline.split("\0").includes(dataDir) ? pid : undefined;
}

/** The postmaster's pid from postmaster.pid, or undefined when PostgreSQL is not running there. */
async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const text = await readFile(join(dataDir, "postmaster.pid"), "utf8").catch(() => undefined);
  const pid = Number(text?.split("\n")[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
