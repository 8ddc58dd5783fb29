// Samples what a server's resident memory is made of under the throughput benchmark's load. Two
// ways to use it:
//
//   # every server alike, loaded before its own code:
//   node bench/throughput/src/compare.ts ... --node-flags="--import=$PWD/bench/throughput/src/memory-sampler.ts"
//   # Folio only, in its place:
//   FOLIO_MAIN=bench/throughput/src/memory-sampler.ts node bench/throughput/src/compare.ts ...
//
// Every 250 ms it appends one JSON line to memory-<entry>-<pid>.ndjson in the server's working
// directory (the benchmark's servers get a clean environment, so this is not configurable), in
// MB: RSS and its anonymous and file-backed parts (/proc/self/status), the V8 heap's total and
// used size, external and ArrayBuffer memory, and each heap space's size. The line with the
// largest RSS is the one to read; RSS less the heap's total is what lies outside the V8 heap.
import { createWriteStream, readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";

const runAsFolio = process.argv[1] === fileURLToPath(import.meta.url);
const entry = runAsFolio ? "folio" : basename(process.argv[1] ?? "node").replace(/\.[cm]?[jt]s$/, "");
const out = createWriteStream(`memory-${entry}-${process.pid}.ndjson`, { flags: "a" });
const megabytes = (bytes: number) => Math.round(bytes / 1048576);
const statusMegabytes = (status: string, field: string) =>
  Math.round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) / 1024);

setInterval(() => {
  const memory = process.memoryUsage();
  const status = readFileSync("/proc/self/status", "utf8");
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((space) => space.space_size > 0)
      .map((space) => [space.space_name, megabytes(space.space_size)]),
  );
  const sample = {
    at: new Date().toISOString(),
    rss: megabytes(memory.rss),
    anonymous: statusMegabytes(status, "RssAnon"),
    file: statusMegabytes(status, "RssFile"),
    heapTotal: megabytes(memory.heapTotal),
    heapUsed: megabytes(memory.heapUsed),
    external: megabytes(memory.external),
    arrayBuffers: megabytes(memory.arrayBuffers),
    spaces,
  };
  out.write(`${JSON.stringify(sample)}\n`);
}, 250).unref();

// Run as Folio's entry: the server's build, as the benchmark would start it.
if (runAsFolio) await import(new URL("../../../apps/server/dist/main.js", import.meta.url).href);
