// Hostile input: what a CreateFolder body near the 1 MiB body limit costs the server, in
// microseconds of its CPU per KiB of the request message, for names built to be slow beside a
// benign name of the same size, over REST, Connect JSON, Connect JSON gzipped and gRPC:
//
//   letters          "a" repeated: benign, refused for its length
//   combining marks  "a", then a run of U+0301 and one of U+0316, which NFC would reorder in time
//                    quadratic in the run (the service refuses the name before NFC)
//   spaces and dots  ".." between runs of spaces: the name rule that needs RE2 (not "." or "..")
//                    reads it to its end
//
// Every request is refused with 400 (gRPC: status 3, invalid_argument) before the database. The
// server runs as its own process (`node dist/main.js`); its CPU time is read from its own metrics
// (process_cpu_seconds_total, every thread) before and after each batch of --requests sequential
// requests of one kind, less what a reading costs. The kinds take turns for --rounds rounds, in a
// rotating order; a figure is the median of its rounds.
//
// Usage (from the repository root, after `pnpm exec turbo run build --filter=@folio/server...`):
//   node apps/server/bench/hostile-input.bench.ts [--requests 8] [--rounds 5]
// DATABASE_URL names the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
// the benchmark creates a database folio_bench_<random> on it and drops it at the end.

import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { freePort } from "@folio/test-support/ports";
import { createFolderWire, PROTOCOLS, type PreparedCall, type Protocol } from "./create-folder-wire.ts";
import { serverCpu } from "./server-cpu.ts";
import {
  createBenchDatabase,
  machine,
  printTable,
  removeDir,
  serverEnvironment,
  startServer,
} from "./support.ts";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "8" },
    rounds: { type: "string", default: "5" },
  },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);

/** Combining marks in each of the two runs: the name is 1 + 4 × 260,000 bytes of UTF-8. */
const MARKS = 260_000;
const NAME_BYTES = 1 + 4 * MARKS;

const NAMES = {
  letters: "a".repeat(NAME_BYTES),
  "combining marks": `a${"\u0301".repeat(MARKS)}${"\u0316".repeat(MARKS)}`,
  "spaces and dots": `${" ".repeat((NAME_BYTES - 2) >> 1)}..${" ".repeat((NAME_BYTES - 1) >> 1)}`,
} as const;
type NameKind = keyof typeof NAMES;
const KINDS = Object.keys(NAMES) as NameKind[];

await measure();

async function measure(): Promise<void> {
  const database = await createBenchDatabase();
  const metricsPort = await freePort();
  const setup = await serverEnvironment(database.url, {
    METRICS_HOST: "127.0.0.1",
    METRICS_PORT: String(metricsPort),
  });
  let stop: () => Promise<void> = async () => {};
  try {
    const server = await startServer(setup.env);
    stop = () => server.close();
    const token = await setup.issuer.sign({ org_id: randomUUID(), scope: "files:upload" }, {}, "2h");
    const wire = createFolderWire(server.baseUrl, token);
    const cpu = serverCpu(`http://127.0.0.1:${metricsPort}/metrics`);
    console.log(`server at ${server.baseUrl} (its own process); ${machine()}`);

    const cells = PROTOCOLS.flatMap((protocol) =>
      KINDS.map((kind) => ({ protocol, kind, call: wire.prepare(protocol, NAMES[kind]) })),
    );
    const outcomes = new Map<string, Set<string>>();
    const key = (protocol: Protocol, kind: NameKind) => `${protocol} ${kind}`;
    // Warm-up: every kind twice, so that the server has compiled what each takes.
    for (const { protocol, kind, call } of cells) {
      outcomes.set(key(protocol, kind), new Set());
      for (let i = 0; i < 2; i++) outcomes.get(key(protocol, kind))?.add(await call.send());
    }
    const readingCost = await cpu.readingCost();
    const samples = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < cells.length; i++) {
        const { protocol, kind, call } = cells[(i + round) % cells.length] as (typeof cells)[number];
        const before = await cpu.read();
        for (let r = 0; r < REQUESTS; r++) outcomes.get(key(protocol, kind))?.add(await call.send());
        const perRequest = ((await cpu.read()) - before - readingCost) / REQUESTS;
        samples.set(key(protocol, kind), [...(samples.get(key(protocol, kind)) ?? []), perRequest]);
      }
    }
    wire.close();

    const byProtocol = (protocol: Protocol) => cells.filter((cell) => cell.protocol === protocol);
    const perKiB = (call: PreparedCall, micros: number) => micros / (call.bodyBytes / 1024);
    const kib = (bytes: number) => (bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0);
    printTable(
      ["protocol", "body KiB", "wire KiB", ...KINDS.map((kind) => `${kind} µs/KiB`), "answer"],
      PROTOCOLS.map((protocol) => {
        const row = byProtocol(protocol);
        return [
          protocol,
          [...new Set(row.map(({ call }) => kib(call.bodyBytes)))].join(" / "),
          [...new Set(row.map(({ call }) => kib(call.wireBytes)))].join(" / "),
          ...row.map(({ kind, call }) => perKiB(call, median(samples.get(key(protocol, kind)) ?? []))),
          [...new Set(row.flatMap(({ kind }) => [...(outcomes.get(key(protocol, kind)) ?? [])]))].join(", "),
        ];
      }),
    );
    console.log(
      `\nbody and wire KiB: ${KINDS.join(" / ")} where they differ; ${REQUESTS} requests a batch, ${ROUNDS} rounds; a reading of the server's CPU costs it ${readingCost.toFixed(0)} µs (subtracted)`,
    );
    console.log(`after: ${machine()}`);
  } finally {
    await stop();
    await removeDir(setup.dir);
    await database.drop();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
