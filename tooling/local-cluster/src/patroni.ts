import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Supervised, startSupervised } from "./supervised.ts";
import { renderTemplate } from "./template.ts";

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
  /** SIGTERM: Patroni stops PostgreSQL (releasing the leader key if it holds it) and exits. */
  stop(): Promise<void>;
}

/** Options of {@link startPatroniNode}. */
export interface PatroniNodeOptions {
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
    },
  );
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
    },
  };
}

/** The postmaster's pid from postmaster.pid, or undefined when PostgreSQL is not running there. */
async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const text = await readFile(join(dataDir, "postmaster.pid"), "utf8").catch(() => undefined);
  const pid = Number(text?.split("\n")[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
