import { type Contestant, WORKLOAD_TITLE, type Workload } from "./contestants.ts";
import { type Sample, throughput } from "./sample.ts";
import { median, pairedRatio } from "./stats.ts";

/** A sample with what the server's process used meanwhile. */
export interface Measured {
  readonly sample: Sample;
  /** CPU time of the server process (all threads) over the sample, per response. */
  readonly cpuMsPerRequest: number;
  /** Resident memory of the server process after the sample. */
  readonly rssBytes: number;
}

/** Every sample, by workload and contestant, in round order (index = round - 1). */
export type Results = Map<Workload, Map<Contestant, Measured[]>>;

/** The Folio contestants compared with the baselines, and the baselines. */
const FOLIO: readonly Contestant[] = [
  "folio-rest",
  "folio-connect-json",
  "folio-connect-proto",
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
        fixed(Math.max(...measured.map((m) => m.rssBytes)) / 1024 / 1024, 0),
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
        "RSS MB",
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

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}
