// The bytes a Node server has allocated on its V8 heap, for the throughput comparison to read before
// and after each sample (compare.ts loads it into every Node server it starts, with
// `--import=<this file>` and BENCH_PROBE_PORT; nothing else loads it). The Go peer serves the same
// answer from runtime.MemStats (bench/throughput/go/probe.go).
//
// V8 keeps no running total of allocation, so it is counted from the collector's own figures:
// v8.GCProfiler reports the used heap before and after every collection, minor ones included, and
// what was allocated since the probe started is the used heap now, less the used heap then, plus
// everything each collection freed. Buffers and other ArrayBuffer memory live outside the V8 heap
// and are not counted.
//
//   GET http://127.0.0.1:$BENCH_PROBE_PORT/allocated  ->  {"allocatedBytes":N,"source":"..."}

import http from "node:http";
import { GCProfiler, getHeapStatistics } from "node:v8";

const port = Number(process.env.BENCH_PROBE_PORT);
if (Number.isInteger(port) && port > 0) {
  let freed = 0;
  let profiler = new GCProfiler();
  profiler.start();
  const startUsed = getHeapStatistics().used_heap_size;
  const allocated = () => {
    // Restarted at every read, so that its record of collections never grows long.
    for (const gc of profiler.stop()?.statistics ?? []) {
      freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    }
    profiler = new GCProfiler();
    profiler.start();
    return getHeapStatistics().used_heap_size - startUsed + freed;
  };
  const server = http.createServer((request, response) => {
    if (request.url !== "/allocated") {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ allocatedBytes: allocated(), source: "V8 heap (v8.GCProfiler)" }));
  });
  // Neither the probe nor its profiler keeps a server alive that is shutting down.
  server.listen(port, "127.0.0.1").unref();
}
