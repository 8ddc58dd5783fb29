// Throughput comparison (issues 15, 20 and 39): Folio over REST, Connect (JSON and binary), gRPC-Web
// and gRPC against hand-written services with the same semantics, Fastify 5 + pg and bare
// node:http + pg over REST, @grpc/grpc-js + pg over gRPC (fastify-service.ts, node-http-service.ts,
// grpc-js-service.ts, sharing baseline/), and the Go stack, grpc-go + pgx over gRPC and
// grpc-gateway in front of it over REST (go/, built by go-peer/build.ts), on one fresh database,
// one ES256 key and one token, each server a child process of its own with a pool of 10
// connections.
//
// Workloads: ListProjects of 10 and of 1000 rows (first page), the 1000 rows over REST with
// `Accept-Encoding: gzip` and with `br` (Folio's REST alone: the baselines do not compress),
// CreateFolder (a new name per request). Interleaved rounds: each round runs every contestant once per workload, in an order
// that rotates, so a slow moment of the machine is shared out. Printed per workload: req/s (median
// of rounds), paired per-round ratios with their spread, server CPU per request (utime + stime of
// the server's pid over the sample), bytes on the wire per response (wrk's count, headers included),
// peak RSS and heap bytes allocated per request over the sample, non-2xx responses, p50/p99
// latency; and cold starts.
//
//   node bench/throughput/src/compare.ts --help
//
// Needs wrk and h2load (Debian: apt-get install -y wrk nghttp2-client) and the server's build
// (pnpm exec turbo run build --filter=@folio/server...); `pnpm bench:throughput` does both steps.

import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { readArgs, USAGE } from "./compare/args.ts";
import { measureColdStarts, printColdStarts } from "./compare/cold-start.ts";
import {
  ACCEPT_ENCODING,
  CONTESTANT_TITLE,
  type Contestant,
  driveOf,
  GRPC_CONTESTANTS,
  runs,
  SERVER_OF,
  type Workload,
} from "./compare/contestants.ts";
import { type BenchDatabase, createBenchDatabase, seedProjects } from "./compare/database.ts";
import { availableContestants, prepareGoPeer } from "./compare/go-contestants.ts";
import { measureSample } from "./compare/measure.ts";
import { preflight } from "./compare/preflight.ts";
import { waitUntilIdle } from "./compare/proc-stats.ts";
import { type Measured, printReport, printSummary, type Results } from "./compare/report.ts";
import {
  type RunningServer,
  SERVER_ENTRY,
  type ServerKind,
  serverSetup,
  startServer,
} from "./compare/servers.ts";
import { createBenchIssuer } from "./compare/tokens.ts";
import { missingTools } from "./compare/tools.ts";

let args: ReturnType<typeof readArgs>;
try {
  args = readArgs(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (args === "help") {
  console.log(USAGE);
  process.exit(0);
}
const available = availableContestants(args.contestants);
for (const note of available.notes) console.error(note);
if (available.contestants.length === 0) {
  console.error("no contestant can run here");
  process.exit(2);
}
const options = { ...args, contestants: available.contestants };

const needsH2load =
  options.contestants.some((c) => GRPC_CONTESTANTS.includes(c)) &&
  options.workloads.some((w) => w !== "create");
const needsWrk = options.contestants.some((c) => !GRPC_CONTESTANTS.includes(c));
const tools = missingTools([
  ...(needsWrk ? (["wrk"] as const) : []),
  ...(needsH2load ? (["h2load"] as const) : []),
]);
if (tools.missing.length > 0) {
  console.error(`not installed: ${tools.missing.join(", ")}. Install with:\n\n  ${tools.install}\n`);
  process.exit(2);
}

const machine = () =>
  `Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;

// Everything to undo, last first: servers, the database, the temporary directory.
const cleanups: (() => Promise<unknown>)[] = [];
const cleanUp = async () => {
  while (cleanups.length > 0)
    await cleanups
      .pop()?.()
      .catch((error: unknown) => console.error(error));
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers and dropping the database`);
    void cleanUp().then(() => process.exit(130));
  });
}

try {
  process.exitCode = (await compare()) ? 0 : 1;
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}

async function compare(): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), "folio-throughput-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));

  let database: BenchDatabase;
  try {
    database = await createBenchDatabase(options.databaseUrl);
  } catch (error) {
    throw new Error(
      `cannot create a database on ${options.databaseUrl} (--database-url): ${(error as Error).message}`,
    );
  }
  cleanups.push(() => database.drop());
  const orgId = randomUUID();
  const others = Array.from({ length: 4 }, () => ({ id: randomUUID(), projects: 1000 }));
  await seedProjects(database.url, [{ id: orgId, projects: options.projects }, ...others]);

  const issuer = await createBenchIssuer(dir);
  const token = await issuer.sign({ org_id: orgId, scope: "files:upload project:read" }, 12);
  const setup = serverSetup({
    databaseUrl: database.url,
    jwksFile: issuer.jwksFile,
    poolSize: options.pool,
    dir,
    readyToken: token,
  });

  console.log(`# Throughput: Folio against hand-written Fastify, node:http, grpc-js and Go services\n`);
  console.log(
    `database ${database.name} on ${new URL(options.databaseUrl).host}: ${options.projects} projects in the measured org, 4 other orgs of 1000`,
  );
  console.log(
    `${options.rounds} interleaved round(s); samples of ${options.duration} s after ${options.warmup} s of warm-up; ${options.connections} connections, one request in flight each; load generator threads: ${options.threads}`,
  );
  const serverEnvNote = Object.entries(options.serverEnv)
    .map(([name, value]) => `, ${name}=${value}`)
    .join("");
  console.log(
    `every server: its own process, a pool of ${options.pool} connections, the same JWKS file, token and page-token key${options.nodeFlags.length > 0 ? `, node ${options.nodeFlags.join(" ")}` : ""}${serverEnvNote}`,
  );
  console.log(
    `Folio: ${SERVER_ENTRY.folio}, DATABASE_POOL_SIZE=${options.pool}, rate limits off, METRICS_PORT=off, LOG_LEVEL=warn`,
  );
  console.log(`machine: ${machine()}`);
  for (const note of [...available.notes, ...prepareGoPeer(options.contestants)]) console.log(note);

  const kinds = [...new Set(options.contestants.map((c) => SERVER_OF[c]))];
  const coldKinds = (["folio", "fastify"] as const).filter((kind) => kinds.includes(kind));
  if (options.coldStarts > 0 && coldKinds.length > 0) {
    printColdStarts(await measureColdStarts(coldKinds, setup, options.coldStarts), options.coldStarts);
  }

  let profileDir: string | undefined;
  const servers = new Map<ServerKind, RunningServer>();
  for (const kind of kinds) {
    const execArgv = [...options.nodeFlags];
    if (options.profile !== undefined && SERVER_OF[options.profile] === kind) {
      profileDir = join(tmpdir(), `folio-throughput-profile-${Date.now()}`);
      await mkdir(profileDir, { recursive: true });
      execArgv.push("--cpu-prof", "--cpu-prof-dir", profileDir);
    }
    const server = await startServer(kind, setup, { execArgv, probe: true, env: options.serverEnv });
    cleanups.push(() => server.stop());
    servers.set(kind, server);
  }
  const urls = new Map([...servers].map(([kind, server]) => [kind, server.url]));

  const runTag = Date.now().toString(36);
  const checked = await preflight(urls, options.contestants, options.workloads, token, runTag);
  console.log("\n## Preflight\n");
  for (const note of checked.notes) console.log(note);
  console.log("one request of every contestant and workload answered as expected");

  const drives = new Map<string, ReturnType<typeof driveOf>>();
  const clients = new Map<string, string>();
  for (const workload of options.workloads) {
    for (const contestant of options.contestants) {
      if (!runs(contestant, workload)) continue;
      const drive = driveOf(
        contestant,
        workload,
        token,
        checked.grpcListDataBytes.get(`${contestant}/${workload}`),
      );
      drives.set(`${contestant}/${workload}`, drive);
      clients.set(`${contestant}/${workload}`, drive.client);
    }
  }

  console.log("\n## Samples\n");
  const results: Results = new Map(
    options.workloads.map((w) => [
      w,
      new Map(options.contestants.filter((c) => runs(c, w)).map((c) => [c, [] as Measured[]])),
    ]),
  );
  const load = { connections: options.connections, threads: options.threads, dir };
  const pids = [...servers.values()].map((server) => server.pid);
  const settle = async () => {
    if (!(await waitUntilIdle(pids))) console.log("(a server was still busy 60 s after its sample ended)");
  };
  // The workloads only Folio runs (its compressed answers) come after every round of the others:
  // the native memory their encoders leave with the allocator would otherwise count in the RSS of
  // Folio's samples that are compared with the peers'.
  const phases = [
    options.workloads.filter((workload) => ACCEPT_ENCODING[workload] === undefined),
    options.workloads.filter((workload) => ACCEPT_ENCODING[workload] !== undefined),
  ];
  const sampleSetup = {
    serverOf: (contestant: Contestant) => servers.get(SERVER_OF[contestant]) as RunningServer,
    driveOf: (contestant: Contestant, workload: Workload) =>
      drives.get(`${contestant}/${workload}`) as ReturnType<typeof driveOf>,
    load,
    warmup: options.warmup,
    duration: options.duration,
    rounds: options.rounds,
    runTag,
    settle,
  };
  const measure = async (contestant: Contestant, workload: Workload, round: number) => {
    const measured = await measureSample(sampleSetup, contestant, workload, round);
    results.get(workload)?.get(contestant)?.push(measured);
  };
  for (const phase of phases) {
    for (let round = 0; round < options.rounds; round++) {
      for (const [w, workload] of phase.entries()) {
        for (const contestant of rotate(options.contestants, round + w)) {
          if (runs(contestant, workload)) await measure(contestant, workload, round);
        }
      }
    }
  }

  for (const server of servers.values()) await server.stop();
  console.log(`\n## Results\n`);
  for (const contestant of options.contestants)
    console.log(`${contestant.padEnd(19)} ${CONTESTANT_TITLE[contestant]}`);
  const clean = printReport(results, clients);
  printSummary(results);
  console.log(`\nafter: ${machine()}`);
  if (!clean)
    console.log(
      "\nFAILED: some responses were not successes (non-2xx or errors above): the figures do not compare",
    );
  if (profileDir !== undefined) {
    const kind = SERVER_OF[options.profile as Contestant];
    console.log(
      `\nCPU profile of the ${kind} server over the whole run, every contestant it served (open the .cpuprofile in Chrome DevTools): ${profileDir}`,
    );
  }
  return clean;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
