// Where a server's V8 heap allocation comes from under the throughput benchmark's load: V8's
// sampling heap profiler, told to keep the samples of objects the collectors have freed (what a
// DevTools "allocation sampling" shows), so that short-lived garbage counts as much as what
// stays. Load it into the servers with
//
//   node bench/throughput/src/compare.ts --contestants folio-rest --workloads list-10 --rounds 1 \
//     --cold-starts 0 --node-flags="--import=$PWD/bench/throughput/src/allocation-sampler.ts"
//
// and each server writes allocation-<entry>-<pid>.heapprofile (the format DevTools opens) in its
// working directory when it exits; `node bench/throughput/src/allocation-sites.ts <file>` prints
// the functions that allocate most. The sampling interval is 8 KiB on average (V8's default is 32):
// sites that allocate a few hundred bytes per request still show over thousands of requests.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { basename } from "node:path";

const entry = basename(process.argv[1] ?? "node").replace(/\.[cm]?[jt]s$/, "");
const session = new Session();
session.connect();
session.post("HeapProfiler.enable");
session.post("HeapProfiler.startSampling", {
  samplingInterval: 8192,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});

// A server with no SIGTERM handler of its own (the peers) would die of the signal without an exit
// event; Folio's handler drains and exits.
process.on("SIGTERM", () => {
  if (process.listenerCount("SIGTERM") === 1) process.exit(0);
});
// An in-process session answers synchronously, so the profile is written before the exit.
process.once("exit", () => {
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (error === null) {
      writeFileSync(`allocation-${entry}-${process.pid}.heapprofile`, JSON.stringify(result.profile));
    }
  });
});
