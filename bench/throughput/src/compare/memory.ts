import { readFileSync, writeFileSync } from "node:fs";

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM), in bytes. */
function statusBytes(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kilobytes) * 1024;
}

/**
 * Watches a process's resident memory until `stop`, which gives the largest seen. The kernel's
 * high-water mark (VmHWM) is reset to the current RSS first (`5` to /proc/<pid>/clear_refs, Linux
 * 4.0+), so that it holds the peak of this stretch alone; VmRSS is also sampled every `everyMs`, for
 * kernels or permissions that refuse the reset.
 */
export function watchPeakRss(pid: number, everyMs = 100): { stop(): number } {
  let resetWorked = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    resetWorked = false;
  }
  let largest = statusBytes(pid, "VmRSS");
  const timer = setInterval(() => {
    try {
      largest = Math.max(largest, statusBytes(pid, "VmRSS"));
    } catch {
      // the process ended; the samples so far stand
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const hwm = resetWorked ? statusBytes(pid, "VmHWM") : 0;
      return Math.max(largest, hwm, statusBytes(pid, "VmRSS"));
    },
  };
}

/**
 * The bytes a server's heap has allocated so far, from its allocation probe (alloc-probe.ts for
 * Node, probe.go for Go); undefined for a server without one.
 */
export async function allocatedBytes(probeUrl: string | undefined): Promise<number | undefined> {
  if (probeUrl === undefined) return undefined;
  const response = await fetch(probeUrl);
  if (!response.ok) throw new Error(`${probeUrl}: HTTP ${response.status}`);
  const { allocatedBytes } = (await response.json()) as { allocatedBytes: number };
  return allocatedBytes;
}
