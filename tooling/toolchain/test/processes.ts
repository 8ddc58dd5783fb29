/** The process tree, as Linux's /proc shows it: which processes a command started. */
import { readdirSync, readFileSync } from "node:fs";

/** Parent pid of every live process. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while the directory was read.
    }
  }
  return parentOf;
}

/** Every live descendant of `pid` (children, their children, ...). */
export function descendants(pid: number): number[] {
  const parentOf = parents();
  const found: number[] = [];
  let generation = [pid];
  while (generation.length > 0) {
    const next = [...parentOf].filter(([, parent]) => generation.includes(parent)).map(([child]) => child);
    found.push(...next);
    generation = next;
  }
  return found;
}

/** The command line of a live process, its arguments joined by spaces ("" once it has ended). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** Whether a process is alive (a zombie, ended but not yet reaped, counts as ended). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
