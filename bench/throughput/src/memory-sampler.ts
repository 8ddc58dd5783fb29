// Runs Folio's server with its memory sampled: what the process's resident memory is made of
// under the throughput benchmark's load. Use it in Folio's place:
//
//   FOLIO_MAIN=bench/throughput/src/memory-sampler.ts node bench/throughput/src/compare.ts ...
//
// Every 500 ms it appends one JSON line to folio-memory.ndjson in the server's working directory
// (the benchmark's servers get a clean environment, so this is not configurable): RSS, the V8
// heap's total and used size, external and ArrayBuffer memory, and each heap space's size and use,
// in MB. The line with the largest RSS is the one to read.
import { createWriteStream } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";

const out = createWriteStream("folio-memory.ndjson", { flags: "a" });
const megabytes = (bytes: number) => Math.round(bytes / 1048576);

setInterval(() => {
  const memory = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((space) => space.space_size > 0)
      .map((space) => [
        space.space_name,
        { size: megabytes(space.space_size), used: megabytes(space.space_used_size) },
      ]),
  );
  const sample = {
    at: new Date().toISOString(),
    rss: megabytes(memory.rss),
    heapTotal: megabytes(memory.heapTotal),
    heapUsed: megabytes(memory.heapUsed),
    external: megabytes(memory.external),
    arrayBuffers: megabytes(memory.arrayBuffers),
    spaces,
  };
  out.write(`${JSON.stringify(sample)}\n`);
}, 500).unref();

// The server's build, as the benchmark would start it.
await import(new URL("../../../apps/server/dist/main.js", import.meta.url).href);
