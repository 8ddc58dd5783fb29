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
// used size, external and ArrayBuffer memory, and each heap space's size; the collections since
// the line before (count and milliseconds, minor and major apart: what a smaller young generation
// costs); and the process's open TCP connections to PostgreSQL (the pool) and from clients to
// its PORT (one HTTP/2 session each, for gRPC). The line with the largest RSS is the one to read;
// RSS less the heap's total is what lies outside the V8 heap.
import { createWriteStream, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename } from "node:path";
import { PerformanceObserver, constants as perfConstants } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";

const runAsFolio = process.argv[1] === fileURLToPath(import.meta.url);
const entry = runAsFolio ? "folio" : basename(process.argv[1] ?? "node").replace(/\.[cm]?[jt]s$/, "");
const out = createWriteStream(`memory-${entry}-${process.pid}.ndjson`, { flags: "a" });
const megabytes = (bytes: number) => Math.round(bytes / 1048576);
const statusMegabytes = (status: string, field: string) =>
  Math.round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) / 1024);

const gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
      gc.minor++;
      gc.minorMs += entry.duration;
    } else {
      gc.major++;
      gc.majorMs += entry.duration;
    }
  }
}).observe({ entryTypes: ["gc"] });

const databasePort = Number(new URL(process.env.DATABASE_URL ?? "postgres://x:5432").port || 5432);
const serverPort = Number(process.env.PORT ?? Number.NaN);

/** Established TCP connections of this process: to the database, and to the server's own port. */
function connections(): { db: number; clients: number } {
  const inodes = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // closed between the listing and the read
    }
  }
  let db = 0;
  let clients = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local address, remote address, state (01: established), ..., inode
      if (fields.length < 10 || fields[3] !== "01" || !inodes.has(fields[9] ?? "")) continue;
      const port = (address: string | undefined) => Number.parseInt(address?.split(":")[1] ?? "", 16);
      if (port(fields[2]) === databasePort) db++;
      else if (port(fields[1]) === serverPort) clients++;
    }
  }
  return { db, clients };
}

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
    gc: { ...gc, minorMs: Math.round(gc.minorMs), majorMs: Math.round(gc.majorMs) },
    ...connections(),
  };
  Object.assign(gc, { minor: 0, minorMs: 0, major: 0, majorMs: 0 });
  out.write(`${JSON.stringify(sample)}\n`);
}, 250).unref();

// Run as Folio's entry: the server's build, as the benchmark would start it.
if (runAsFolio) await import(new URL("../../../apps/server/dist/main.js", import.meta.url).href);
