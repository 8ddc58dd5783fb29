/**
 * A PostgreSQL server of a test's own, for tests that stop, kill and restart the database under a
 * running Folio: Debian's binaries (`initdb`, `pg_ctl` under /usr/lib/postgresql/<version>/bin),
 * run as the `postgres` OS user, on a free loopback port, in a temporary directory. The machine's
 * shared PostgreSQL is never touched.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports.js";
import { removeTempDir } from "./temp-dir.js";

const run = promisify(execFile);

/** A running cluster of a test's own. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (`pg_ctl stop -m fast`: connections are terminated with 57P01). */
  stop(): Promise<void>;
  /** Kills the postmaster with SIGKILL, as a crash would (the next start recovers). */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it if running and deletes its directory. */
  destroy(): Promise<void>;
}

/** The bin directory of Debian's newest PostgreSQL, or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

/** True when this machine can run {@link startPostgresCluster} (the binaries and a `postgres` user). */
export function canRunPostgresCluster(): boolean {
  return postgresBinDir() !== undefined && process.getuid?.() === 0 && existsSync("/usr/sbin/runuser");
}

/** Creates and starts a cluster (trust authentication, loopback only). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql");
  const dir = await mkdtemp(join(tmpdir(), "folio-pg-"));
  const data = join(dir, "data");
  const { uid, gid } = await postgresUser();
  await chown(dir, uid, gid);
  await chmod(dir, 0o700);
  const asPostgres = (command: string, args: string[]) =>
    run("/usr/sbin/runuser", ["-u", "postgres", "--", join(bin, command), ...args], { timeout: 120_000 });
  await asPostgres("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
  const start = async () => {
    try {
      await asPostgres("pg_ctl", [
        "-D",
        data,
        "-o",
        options,
        "-l",
        join(dir, "log"),
        "-w",
        "-t",
        "120",
        "start",
      ]);
    } catch (error) {
      // pg_ctl says only "Examine the log output": the reason is in the log, gone with the directory.
      const log = await readFile(join(dir, "log"), "utf8").catch(() => "");
      throw new Error(`${(error as Error).message}\nlog:\n${log.slice(-3000)}`, { cause: error });
    }
  };
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "120", "stop"]);
      running = false;
    },
    async kill() {
      // postmaster.pid: the pid on line 1, the shared memory's key and id on line 7.
      const lines = (await readFile(join(data, "postmaster.pid"), "utf8")).split("\n");
      const pid = Number(lines[0]);
      const shmid = Number(lines[6]?.trim().split(/\s+/)[1]);
      process.kill(pid, "SIGKILL");
      // Its backends notice the postmaster is gone and exit; wait until the port is free...
      await waitFor(async () => !(await accepts(port)), 30_000);
      // ...and until none of them is attached to its shared memory any more: a new postmaster
      // refuses to start while one is ("pre-existing shared memory block is still in use").
      // A backend busy with a query notices only when the query ends.
      if (Number.isInteger(shmid)) await waitFor(async () => (await attachments(shmid)) === 0, 30_000);
      // And the postmaster itself must be gone: a new one refuses to start while the pid in
      // postmaster.pid exists ("lock file already exists"), and a killed process exists, as a
      // zombie, until init reaps it. Where init never does (a container without one), the lock
      // file is stale: the postmaster is dead and nothing is attached to its memory.
      try {
        await waitFor(async () => (await processState(pid)) === undefined, 10_000);
      } catch (error) {
        if ((await processState(pid)) !== "Z") throw error;
        await rm(join(data, "postmaster.pid"), { force: true });
      }
      running = false;
    },
    async start() {
      // A killed postmaster leaves its pid file; pg_ctl start sees the process is gone.
      await start();
      running = true;
    },
    async destroy() {
      if (running) {
        await asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      }
      await removeTempDir(dir);
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The state letter of a process (`R`, `S`, `Z` for a zombie, ...), or undefined when there is none. */
async function processState(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  // "pid (comm) state ...": comm may contain spaces and parentheses, the state follows the last ")".
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
}

/** Processes attached to the System V shared memory segment `shmid` (0 when it is gone). */
async function attachments(shmid: number): Promise<number> {
  // Columns: key shmid perms size cpid lpid nattch ...
  const rows = (await readFile("/proc/sysvipc/shm", "utf8")).split("\n").slice(1);
  const row = rows.map((line) => line.trim().split(/\s+/)).find((columns) => Number(columns[1]) === shmid);
  return row === undefined ? 0 : Number(row[6]);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    import("node:net").then(({ connect }) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
  });
}

/** Polls `condition` until it holds, or fails after `timeoutMs`. */
export async function waitFor(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
