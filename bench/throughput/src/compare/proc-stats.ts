import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, 100 on Linux as a rule). */
const TICKS_PER_SECOND = (() => {
  const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const ticks = Number(out.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * CPU time the process has used so far, user and system, all its threads (utime + stime of
 * /proc/<pid>/stat), in milliseconds. Its resolution is a clock tick (10 ms).
 */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: state is the
  // first (field 3), utime field 14 and stime field 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Resident memory of the process now (VmRSS of /proc/<pid>/status), in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kilobytes) * 1024;
}

/**
 * Waits until the processes have gone idle: less than `maxCpuMs` of CPU together over a window of
 * `windowMs`. A load generator that stops leaves requests in flight, which the server still works
 * off; the next sample must not share the machine with that. Resolves false if they are still busy
 * after `timeoutMs`.
 */
export async function waitUntilIdle(
  pids: readonly number[],
  { windowMs = 250, maxCpuMs = 10, timeoutMs = 60_000 } = {},
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  const total = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  let before = total();
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = total();
    if (now - before <= maxCpuMs) return true;
    before = now;
  }
  return false;
}
