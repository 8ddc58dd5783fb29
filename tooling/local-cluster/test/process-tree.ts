// The processes a program started, as /proc shows them (Linux), to check that none outlives it.
import { readdirSync, readFileSync } from "node:fs";

/** One process, told apart from a later one with the same pid by its start time. */
export interface ProcessInfo {
  readonly pid: number;
  /** Clock ticks after boot (field 22 of /proc/<pid>/stat). */
  readonly startTime: string;
  readonly command: string;
}

interface Stat {
  readonly ppid: number;
  readonly state: string;
  readonly startTime: string;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces: the fields after it are split.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", ppid: Number(fields[1]), startTime: fields[19] ?? "" };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/** `roots` and every descendant of theirs running now. */
export function processTree(roots: readonly number[]): ProcessInfo[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat === undefined) continue;
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  }
  const found: ProcessInfo[] = [];
  const queue = [...roots];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    const stat = readStat(pid);
    if (stat === undefined || !isAlive(stat)) continue;
    found.push({ pid, startTime: stat.startTime, command: commandOf(pid) });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * Whether the process still runs. A zombie has exited: it waits for its parent to collect its
 * status (a reparented one for init, which in a container may never do it).
 */
export function isRunning(info: ProcessInfo): boolean {
  const stat = readStat(info.pid);
  return stat !== undefined && stat.startTime === info.startTime && isAlive(stat);
}

function isAlive(stat: Stat): boolean {
  return stat.state !== "Z" && stat.state !== "X";
}

/**
 * Records every process of the tree under `roots()` while it runs, polling /proc: a process
 * started and ended between two polls is missed, but it is gone anyway.
 */
export function trackProcesses(roots: () => number[], intervalMs = 100) {
  const seen = new Map<string, ProcessInfo>();
  const poll = () => {
    for (const info of processTree(roots())) seen.set(`${info.pid}@${info.startTime}`, info);
  };
  poll();
  const timer = setInterval(poll, intervalMs);
  return {
    /** Every process seen so far. */
    get seen(): ProcessInfo[] {
      return [...seen.values()];
    },
    /** Those still running. */
    running(): ProcessInfo[] {
      return [...seen.values()].filter(isRunning);
    },
    /** Polls once more, then no longer. */
    stop() {
      poll();
      clearInterval(timer);
    },
  };
}
