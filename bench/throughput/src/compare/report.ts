import { ACCEPT_ENCODING, type Contestant, SERVER_OF, WORKLOAD_TITLE, type Workload } from "./contestants.ts";
import { type Sample, throughput } from "./sample.ts";
import { median, pairedRatio } from "./stats.ts";

/** A sample with what the server's process used meanwhile. */
export interface Measured {
  readonly sample: Sample;
  /** CPU time of the server process (all threads) over the sample, per response. */
  readonly cpuMsPerRequest: number;
  /** The largest resident memory of the server process during the sample (memory.ts). */
  readonly peakRssBytes: number;
  /**
   * Heap bytes the server allocated over the sample, per response, from its probe: V8's heap for
   * Node (alloc-probe.ts), the Go heap for Go (probe.go); NaN without a probe.
   */
  readonly allocatedBytesPerRequest: number;
}

/** Every sample, by workload and contestant, in round order (index = round - 1). */
export type Results = Map<Workload, Map<Contestant, Measured[]>>;

/** The Folio contestants compared with the baselines, and the baselines. */
const FOLIO: readonly Contestant[] = [
  "folio-rest",
  "folio-connect-json",
  "folio-connect-proto",
  "folio-grpc-web",
  "folio-grpc",
];
const BASELINES: readonly Contestant[] = ["fastify", "node-http"];

/** Prints, per workload, the figures of every contestant and the paired ratios. */
export function printReport(results: Results, clients: ReadonlyMap<string, string>): boolean {
  let clean = true;
  for (const [workload, byContestant] of results) {
    console.log(`\n### ${WORKLOAD_TITLE[workload]}\n`);
    const rows: string[][] = [];
    for (const [contestant, measured] of byContestant) {
      const rates = measured.map((m) => throughput(m.sample));
      const failures = measured.reduce((sum, m) => sum + m.sample.failures, 0);
      const errors = measured.reduce((sum, m) => sum + m.sample.errors, 0);
      if (failures > 0 || errors > 0) clean = false;
      rows.push([
        contestant,
        clients.get(`${contestant}/${workload}`) ?? "",
        fixed(median(rates), 0),
        `${fixed(Math.min(...rates), 0)}–${fixed(Math.max(...rates), 0)}`,
        fixed(median(measured.map((m) => m.cpuMsPerRequest)), 3),
        fixed(median(measured.map(bytesPerResponse)), 0),
        fixed(Math.max(...measured.map((m) => m.peakRssBytes)) / 1024 / 1024, 0),
        fixed(median(measured.map((m) => m.allocatedBytesPerRequest)) / 1024, 1),
        String(failures),
        String(errors),
        fixed(median(measured.map((m) => m.sample.p50Ms)), 2),
        fixed(median(measured.map((m) => m.sample.p99Ms)), 2),
      ]);
    }
    printTable(
      [
        "contestant",
        "load generator",
        "req/s",
        "min–max",
        "CPU ms/req",
        "bytes/resp",
        "peak RSS MB",
        "alloc KB/req",
        "non-2xx",
        "errors",
        "p50 ms",
        "p99 ms",
      ],
      rows,
    );

    const rate = (contestant: Contestant) => byContestant.get(contestant)?.map((m) => throughput(m.sample));
    const ratioRows: string[][] = [];
    const addRatio = (a: Contestant, b: Contestant) => {
      const x = rate(a);
      const y = rate(b);
      if (x === undefined || y === undefined) return;
      const spread = pairedRatio(x, y);
      ratioRows.push([
        `${a} / ${b}`,
        fixed(spread.median, 2),
        `${fixed(spread.min, 2)}–${fixed(spread.max, 2)}`,
        String(spread.rounds),
      ]);
    };
    for (const baseline of BASELINES) for (const folio of FOLIO) addRatio(folio, baseline);
    addRatio("folio-grpc", "grpc-js");
    addRatio("folio-grpc", "go-grpc");
    addRatio("folio-rest", "go-gateway");
    addRatio("folio-rest", "folio-connect-json");
    if (ratioRows.length > 0) {
      console.log(
        "\nreq/s ratios, each the median of the per-round ratios (the two measured in the same round):\n",
      );
      printTable(["ratio", "median", "min–max", "rounds"], ratioRows);
    }
  }
  return clean;
}

/** Each protocol of Folio against the peer a team would write for it, as req/s ratios. */
const PEER_RATIOS: readonly (readonly [Contestant, Contestant])[] = [
  ["folio-grpc", "grpc-js"],
  ["folio-connect-proto", "fastify"],
  ["folio-connect-json", "fastify"],
  ["folio-grpc-web", "fastify"],
  ["folio-rest", "fastify"],
  ["folio-rest", "node-http"],
  ["folio-grpc", "go-grpc"],
  ["folio-rest", "go-gateway"],
];

/** CPU per request of Folio's protocols against its REST path, and of Folio against the peers. */
const CPU_RATIOS: readonly (readonly [Contestant, Contestant])[] = [
  ["folio-connect-json", "folio-rest"],
  ["folio-connect-proto", "folio-rest"],
  ["folio-grpc-web", "folio-rest"],
  ["folio-grpc", "folio-rest"],
  ["folio-grpc", "grpc-js"],
  ["folio-rest", "fastify"],
  ["folio-grpc", "go-grpc"],
  ["folio-rest", "go-gateway"],
];

/**
 * The run at a glance, workloads side by side: req/s ratios of each protocol against its peer,
 * server CPU per request of every contestant (the cost of each protocol), CPU ratios, and memory
 * (printMemory).
 */
export function printSummary(results: Results): void {
  const workloads = [...results.keys()];
  const contestants = [...new Set(workloads.flatMap((w) => [...(results.get(w)?.keys() ?? [])]))];
  const samples = (workload: Workload, contestant: Contestant) => results.get(workload)?.get(contestant);
  const ratioRows = (
    pairs: readonly (readonly [Contestant, Contestant])[],
    figure: (m: Measured) => number,
  ): string[][] =>
    pairs
      .filter(([a, b]) => contestants.includes(a) && contestants.includes(b))
      .map(([a, b]) => [
        `${a} / ${b}`,
        ...workloads.map((w) => {
          const x = samples(w, a)?.map(figure);
          const y = samples(w, b)?.map(figure);
          if (x === undefined || y === undefined) return "";
          const spread = pairedRatio(x, y);
          return `${fixed(spread.median, 2)} (${fixed(spread.min, 2)}–${fixed(spread.max, 2)})`;
        }),
      ]);

  console.log("\n## Summary\n");
  const peers = ratioRows(PEER_RATIOS, (m) => throughput(m.sample));
  if (peers.length > 0) {
    console.log("req/s ratios, median of the per-round ratios (min–max):\n");
    printTable(["ratio", ...workloads], peers);
  }
  console.log("\nserver CPU ms per request, median over rounds (user + system of the server's process):\n");
  printTable(
    ["contestant", ...workloads],
    contestants.map((c) => [
      c,
      ...workloads.map((w) => fixed(median(samples(w, c)?.map((m) => m.cpuMsPerRequest) ?? []), 3)),
    ]),
  );
  const compressed = workloads.filter((w) => w.startsWith("list-1000"));
  if (compressed.length > 1 && contestants.includes("folio-rest")) {
    console.log(
      "\nFolio's REST list of 1000 rows by coding, medians over rounds (bytes: on the wire, headers included):\n",
    );
    printTable(
      ["workload", "CPU ms/req", "bytes/resp", "req/s"],
      compressed.map((w) => {
        const measured = samples(w, "folio-rest") ?? [];
        return [
          w,
          fixed(median(measured.map((m) => m.cpuMsPerRequest)), 3),
          fixed(median(measured.map(bytesPerResponse)), 0),
          fixed(median(measured.map((m) => throughput(m.sample))), 0),
        ];
      }),
    );
  }
  const cpu = ratioRows(CPU_RATIOS, (m) => m.cpuMsPerRequest);
  if (cpu.length > 0) {
    console.log("\nCPU per request ratios, median of the per-round ratios (min–max; below 1: cheaper):\n");
    printTable(["ratio", ...workloads], cpu);
  }
  printMemory(results, workloads, contestants);
}

/**
 * Memory, workloads side by side: heap bytes allocated per request of every contestant, and the
 * peak RSS of each contestant; then the largest peak of each server over the workloads every
 * contestant runs (measured first), and Folio's after its REST-only compressed workloads too.
 */
function printMemory(
  results: Results,
  workloads: readonly Workload[],
  contestants: readonly Contestant[],
): void {
  const samples = (workload: Workload, contestant: Contestant) => results.get(workload)?.get(contestant);
  console.log(
    "\nheap KB allocated per request, median over rounds (Node: V8 heap, Buffers not counted; Go: runtime.MemStats.TotalAlloc):\n",
  );
  printTable(
    ["contestant", ...workloads],
    contestants.map((c) => [
      c,
      ...workloads.map((w) =>
        fixed(median(samples(w, c)?.map((m) => m.allocatedBytesPerRequest) ?? []) / 1024, 1),
      ),
    ]),
  );
  console.log(
    "\npeak RSS MB during the samples, largest over rounds (the Folio contestants share one process):\n",
  );
  printTable(
    ["contestant", ...workloads],
    contestants.map((c) => [
      c,
      ...workloads.map((w) =>
        fixed(Math.max(...(samples(w, c)?.map((m) => m.peakRssBytes) ?? [])) / 1048576, 0),
      ),
    ]),
  );
  const largestRss = (among: readonly Workload[]) => {
    const rss = new Map<string, number>();
    for (const w of among) {
      for (const c of contestants) {
        for (const m of samples(w, c) ?? []) {
          const server = SERVER_OF[c];
          rss.set(server, Math.max(rss.get(server) ?? 0, m.peakRssBytes));
        }
      }
    }
    return rss;
  };
  const megabytes = (bytes: number | undefined) => `${fixed((bytes ?? 0) / 1024 / 1024, 0)} MB`;
  const shared = workloads.filter((w) => ACCEPT_ENCODING[w] === undefined);
  console.log(
    `\npeak RSS of each server during any sample of ${shared.join(", ")}: ${[...largestRss(shared)].map(([server, bytes]) => `${server} ${megabytes(bytes)}`).join(", ")}`,
  );
  if (shared.length < workloads.length) {
    console.log(
      `Folio's after its compressed workloads too: ${megabytes(largestRss(workloads).get("folio"))}`,
    );
  }
}

/** A Markdown table, numbers right-aligned. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((title, i) =>
    Math.max(title.length, 3, ...rows.map((row) => (row[i] ?? "").length)),
  );
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((row) => /^[-\d.–]*$/.test(row[i] ?? "")),
  );
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(" | ")} |`;
  console.log(line(header));
  console.log(
    `| ${widths.map((w, i) => (numeric[i] ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`,
  );
  for (const row of rows) console.log(line(row));
}

/** Bytes received per response over a sample (headers included); NaN where not counted. */
function bytesPerResponse(m: Measured): number {
  return m.sample.bytes === undefined || m.sample.requests === 0
    ? Number.NaN
    : m.sample.bytes / m.sample.requests;
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}
