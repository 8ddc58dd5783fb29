import type { Contestant, Drive, Workload } from "./contestants.ts";
import { allocatedBytes, watchPeakRss } from "./memory.ts";
import { cpuMs } from "./proc-stats.ts";
import type { Measured } from "./report.ts";
import { throughput } from "./sample.ts";
import type { RunningServer } from "./servers.ts";
import type { LoadOptions } from "./wrk.ts";

/** What every sample of a run shares. */
export interface SampleSetup {
  readonly serverOf: (contestant: Contestant) => RunningServer;
  readonly driveOf: (contestant: Contestant, workload: Workload) => Drive;
  readonly load: Omit<LoadOptions, "seconds">;
  readonly warmup: number;
  readonly duration: number;
  readonly rounds: number;
  readonly runTag: string;
  /** Waits until every server is idle (the requests a load generator left in flight worked off). */
  readonly settle: () => Promise<void>;
}

/**
 * One sample of a contestant under a workload, after its warm-up, printed as it finishes: the
 * load generator's figures; the server process's CPU time, peak RSS (watchPeakRss) and heap bytes
 * allocated (its probe, read just before and just after the sample) over the sample.
 */
export async function measureSample(
  setup: SampleSetup,
  contestant: Contestant,
  workload: Workload,
  round: number,
): Promise<Measured> {
  const server = setup.serverOf(contestant);
  const drive = setup.driveOf(contestant, workload);
  const prefix = `${setup.runTag}-${contestant}-${workload}-r${round + 1}`;
  if (setup.warmup > 0) {
    await drive.run(server.url, `${prefix}-w`, { ...setup.load, seconds: setup.warmup });
    await setup.settle();
  }
  const allocatedBefore = await allocatedBytes(server.probeUrl);
  const memory = watchPeakRss(server.pid);
  const cpuBefore = cpuMs(server.pid);
  const sample = await drive.run(server.url, prefix, { ...setup.load, seconds: setup.duration });
  const cpu = cpuMs(server.pid) - cpuBefore;
  const peakRssBytes = memory.stop();
  const allocatedAfter = await allocatedBytes(server.probeUrl);
  const allocated =
    allocatedBefore === undefined || allocatedAfter === undefined
      ? Number.NaN
      : allocatedAfter - allocatedBefore;
  const measured: Measured = {
    sample,
    cpuMsPerRequest: sample.requests > 0 ? cpu / sample.requests : Number.NaN,
    peakRssBytes,
    allocatedBytesPerRequest: sample.requests > 0 ? allocated / sample.requests : Number.NaN,
  };
  await setup.settle();
  console.log(
    `round ${round + 1}/${setup.rounds}  ${workload.padEnd(9)}  ${contestant.padEnd(19)}  ${throughput(sample).toFixed(0).padStart(6)} req/s  ` +
      `${measured.cpuMsPerRequest.toFixed(3)} CPU ms/req  non-2xx ${sample.failures}  errors ${sample.errors}`,
  );
  return measured;
}
