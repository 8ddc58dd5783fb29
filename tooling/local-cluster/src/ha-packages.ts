import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { MissingProgramsError, which } from "./debian-packages.ts";

/** The programs of the highly available PostgreSQL, with the Debian packages that bring each. */
const HA_PROGRAMS = {
  patroni: { binary: "patroni", debianPackages: ["patroni", "python3-etcd", "python3-psycopg2"] },
  etcd: { binary: "etcd", debianPackages: ["etcd-server"] },
} as const;

/** Where Patroni, etcd and PostgreSQL's binaries are. */
export interface HaPrograms {
  readonly patroni: string;
  readonly etcd: string;
  /** PostgreSQL's bin directory (initdb, pg_ctl, postgres). */
  readonly postgresBinDir: string;
}

/**
 * The paths of Patroni and etcd, and PostgreSQL's bin directory. With `install`, missing packages
 * are installed from Debian first (`apt-get`, as root; their services are not started: Patroni
 * and etcd run as processes of the cluster); otherwise, or when that fails, throws
 * {@link MissingProgramsError}.
 */
export function ensureHaPrograms(options: { install: boolean }): HaPrograms {
  const missing = () => Object.values(HA_PROGRAMS).filter((program) => which(program.binary) === undefined);
  if (missing().length > 0 && options.install) {
    const packages = missing().flatMap((program) => program.debianPackages);
    if (process.getuid?.() !== 0) {
      throw new MissingProgramsError(
        `not installed, and installing needs root: apt-get install ${packages.join(" ")}`,
      );
    }
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const update = spawnSync("apt-get", ["update", "-qq"], { env, stdio: "inherit" });
    const install = spawnSync("apt-get", ["install", "-y", "-qq", ...packages], { env, stdio: "inherit" });
    if (update.status !== 0 || install.status !== 0) {
      throw new MissingProgramsError(`apt-get install ${packages.join(" ")} failed`);
    }
  }
  const still = missing().flatMap((program) => program.debianPackages);
  if (still.length > 0) {
    throw new MissingProgramsError(`not installed: ${still.join(", ")} (apt-get install ${still.join(" ")})`);
  }
  const binDir = postgresBinDir();
  if (binDir === undefined || process.getuid?.() !== 0) {
    throw new MissingProgramsError(
      "the highly available mode runs PostgreSQL (Debian's postgresql package) as the postgres user: it needs root",
    );
  }
  return {
    patroni: which(HA_PROGRAMS.patroni.binary) as string,
    etcd: which(HA_PROGRAMS.etcd.binary) as string,
    postgresBinDir: binDir,
  };
}

/** The bin directory of Debian's newest PostgreSQL (/usr/lib/postgresql/<major>/bin), if any. */
function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((major) => existsSync(join(root, major, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(root, majors[0], "bin");
}
