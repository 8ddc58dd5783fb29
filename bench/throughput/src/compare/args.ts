import { parseArgs } from "node:util";
import { CONTESTANTS, type Contestant, GO_CONTESTANTS, WORKLOADS, type Workload } from "./contestants.ts";
import { DEFAULT_SERVER_URL } from "./database.ts";

export const USAGE = `Usage: node bench/throughput/src/compare.ts [flags]   (after building the server:
       pnpm exec turbo run build --filter=@folio/server..., or use pnpm bench:throughput)

  --database-url URL   PostgreSQL server to create the database folio_bench_<timestamp> on
                       (default: $DATABASE_URL, else ${DEFAULT_SERVER_URL}); dropped at the end
  --duration S         seconds of each measured sample (default 10)
  --warmup S           seconds of the same load before each sample, not measured (default 2)
  --rounds N           interleaved rounds: every contestant once per workload each round (default 5)
  --connections N      concurrent connections, one request in flight each (default 50)
  --threads N          load generator threads (wrk -t, h2load -t; default 1)
  --workloads LIST     of ${WORKLOADS.join(",")} (default all)
  --contestants LIST   of ${CONTESTANTS.join(",")} (default all; go-grpc and go-gateway need
                       Go and Debian's packages of its stack, and are reported unavailable without)
  --projects N         projects of the measured organisation (default 5000, at least 2000)
  --pool N             database connections of every server (default 10)
  --cold-starts N      cold starts of Folio and Fastify each, median printed (default 3; 0: none)
  --profile NAME       run the server of contestant NAME with --cpu-prof; prints where the profile is
                       (the Folio contestants share one process: narrow with --contestants)
  --node-flags FLAGS   Node options for every server's process, space-separated, e.g.
                       "--max-semi-space-size=16" (V8's young generation, see docs/benchmarks.md)
  --server-env VARS    more environment for every server's process, space-separated NAME=value,
                       e.g. "MALLOC_ARENA_MAX=2" (glibc's allocator, see docs/benchmarks.md)

  FOLIO_MAIN=path/to/main.js  measures that build of Folio instead of apps/server/dist/main.js`;

export interface CompareArgs {
  readonly databaseUrl: string;
  readonly duration: number;
  readonly warmup: number;
  readonly rounds: number;
  readonly connections: number;
  readonly threads: number;
  readonly workloads: readonly Workload[];
  readonly contestants: readonly Contestant[];
  readonly projects: number;
  readonly pool: number;
  readonly coldStarts: number;
  readonly profile: Contestant | undefined;
  /** Node options every server runs with (each contestant alike). */
  readonly nodeFlags: readonly string[];
  /** Environment every server runs with, over the benchmark's own. */
  readonly serverEnv: Readonly<Record<string, string>>;
}

/** The flags, checked; throws with a message naming the bad one. */
export function readArgs(argv: readonly string[]): CompareArgs | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "database-url": { type: "string" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      rounds: { type: "string", default: "5" },
      connections: { type: "string", default: "50" },
      threads: { type: "string", default: "1" },
      workloads: { type: "string", default: WORKLOADS.join(",") },
      contestants: { type: "string", default: CONTESTANTS.join(",") },
      projects: { type: "string", default: "5000" },
      pool: { type: "string", default: "10" },
      "cold-starts": { type: "string", default: "3" },
      profile: { type: "string" },
      "node-flags": { type: "string", default: "" },
      "server-env": { type: "string", default: "" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return "help";
  const number = (name: string, text: string, min: number) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n < min)
      throw new Error(`--${name} must be a number of at least ${min}, got "${text}"`);
    return n;
  };
  const list = <T extends string>(name: string, text: string, known: readonly T[]): T[] => {
    const items = text
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    const unknown = items.filter((item) => !known.includes(item as T));
    if (unknown.length > 0 || items.length === 0) {
      throw new Error(`--${name}: unknown ${unknown.join(", ") || "(empty)"}; known: ${known.join(", ")}`);
    }
    return [...new Set(items as T[])];
  };
  const contestants = list("contestants", values.contestants, CONTESTANTS);
  const profile = values.profile === undefined ? undefined : list("profile", values.profile, CONTESTANTS)[0];
  if (profile !== undefined && GO_CONTESTANTS.includes(profile)) {
    throw new Error("--profile runs a Node server with --cpu-prof; the Go peer is not one");
  }
  const threads = number("threads", values.threads, 1);
  const connections = number("connections", values.connections, threads);
  return {
    databaseUrl: values["database-url"] ?? process.env.DATABASE_URL ?? DEFAULT_SERVER_URL,
    duration: number("duration", values.duration, 1),
    warmup: number("warmup", values.warmup, 0),
    rounds: number("rounds", values.rounds, 1),
    connections,
    threads,
    workloads: list("workloads", values.workloads, WORKLOADS),
    contestants,
    projects: number("projects", values.projects, 2000),
    pool: number("pool", values.pool, 1),
    coldStarts: number("cold-starts", values["cold-starts"], 0),
    profile,
    nodeFlags: values["node-flags"].split(" ").filter((flag) => flag !== ""),
    serverEnv: Object.fromEntries(
      values["server-env"]
        .split(" ")
        .filter((pair) => pair !== "")
        .map((pair) => {
          const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
          if (match === null) throw new Error(`--server-env: "${pair}" is not NAME=value`);
          return [match[1], match[2]];
        }),
    ),
  };
}
