import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The programs a cluster runs besides Node, with the Debian package of each. */
const PROGRAMS = {
  haproxy: { binary: "haproxy", debianPackage: "haproxy" },
  pgbouncer: { binary: "pgbouncer", debianPackage: "pgbouncer" },
  redisServer: { binary: "redis-server", debianPackage: "redis-server" },
} as const;

type Program = keyof typeof PROGRAMS;

/** Where each program of a cluster is installed. */
export type Binaries = Readonly<Record<Program, string>>;

/** A program of the cluster is missing and could not be installed. */
export class MissingProgramsError extends Error {
  override readonly name = "MissingProgramsError";
}

/** Finds `binary` on PATH or in the sbin directories, where Debian puts daemons. */
export function which(binary: string): string | undefined {
  const directories = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/sbin"];
  for (const directory of directories) {
    if (directory === "") continue;
    const candidate = join(directory, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function missingPrograms(): Program[] {
  return (Object.keys(PROGRAMS) as Program[]).filter(
    (program) => which(PROGRAMS[program].binary) === undefined,
  );
}

/**
 * The paths of HAProxy, PgBouncer and redis-server. With `install`, missing ones are installed
 * from Debian's packages first (`apt-get`, as root); otherwise, or when that fails, throws
 * {@link MissingProgramsError} naming them.
 */
export function ensurePrograms(options: { install: boolean }): Binaries {
  let missing = missingPrograms();
  if (missing.length > 0 && options.install) {
    const packages = missing.map((program) => PROGRAMS[program].debianPackage);
    if (process.getuid?.() !== 0) {
      throw new MissingProgramsError(
        `${packages.join(", ")} not installed, and installing needs root: apt-get install ${packages.join(" ")}`,
      );
    }
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const update = spawnSync("apt-get", ["update", "-qq"], { env, stdio: "inherit" });
    const install = spawnSync("apt-get", ["install", "-y", "-qq", ...packages], { env, stdio: "inherit" });
    if (update.status !== 0 || install.status !== 0) {
      throw new MissingProgramsError(`apt-get install ${packages.join(" ")} failed`);
    }
    missing = missingPrograms();
  }
  if (missing.length > 0) {
    const packages = missing.map((program) => PROGRAMS[program].debianPackage);
    throw new MissingProgramsError(
      `not installed: ${packages.join(", ")} (apt-get install ${packages.join(" ")})`,
    );
  }
  return {
    haproxy: which(PROGRAMS.haproxy.binary) as string,
    pgbouncer: which(PROGRAMS.pgbouncer.binary) as string,
    redisServer: which(PROGRAMS.redisServer.binary) as string,
  };
}
