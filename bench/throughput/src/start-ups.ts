// Cold starts of several builds of Folio side by side, with Fastify's as the yardstick: each start
// from spawning the process to its first successful authenticated ListProjects, on one database,
// key and token (the throughput harness's own setup), the builds taking turns in an order that
// rotates from one round to the next. Prints, per server, the medians of the wall time and of the
// CPU time (user + system, /proc, 10 ms ticks) to that answer, and the medians of per-round ratios
// against the first build and against Fastify, and the median resident memory at that answer. CPU
// time is the steadier figure on a shared machine, where a start waits for the CPU as much as it
// uses it.
//
//   node bench/throughput/src/start-ups.ts --starts 12 \
//     --folio ../before/apps/server/dist/main.js,apps/server/dist/main.js
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBenchDatabase, DEFAULT_SERVER_URL, seedProjects } from "./compare/database.ts";
import { cpuMs, rssBytes } from "./compare/proc-stats.ts";
import { serverSetup, startServer } from "./compare/servers.ts";
import { median } from "./compare/stats.ts";
import { createBenchIssuer } from "./compare/tokens.ts";

const { values } = parseArgs({
  options: {
    starts: { type: "string", default: "9" },
    folio: { type: "string", default: "apps/server/dist/main.js" },
    "database-url": { type: "string", default: process.env.DATABASE_URL ?? DEFAULT_SERVER_URL },
  },
});
const starts = Number(values.starts);
const builds = values.folio.split(",").filter((entry) => entry !== "");
const contestants = [
  ...builds.map((entry) => ({ name: entry, kind: "folio" as const, entry })),
  { name: "fastify", kind: "fastify" as const, entry: undefined },
];

const dir = await mkdtemp(join(tmpdir(), "folio-start-ups-"));
const database = await createBenchDatabase(values["database-url"], "folio_start_ups");
try {
  const orgId = randomUUID();
  await seedProjects(database.url, [{ id: orgId, projects: 10 }]);
  const issuer = await createBenchIssuer(dir);
  const setup = serverSetup({
    databaseUrl: database.url,
    jwksFile: issuer.jwksFile,
    poolSize: 10,
    dir,
    readyToken: await issuer.sign({ org_id: orgId, scope: "project:read" }, 12),
  });
  const rounds: Map<string, { wall: number; cpu: number; rss: number }>[] = [];
  for (let round = 0; round < starts; round++) {
    const measured = new Map<string, { wall: number; cpu: number; rss: number }>();
    for (let turn = 0; turn < contestants.length; turn++) {
      const { name, kind, entry } = contestants[
        (round + turn) % contestants.length
      ] as (typeof contestants)[number];
      const server = await startServer(kind, setup, { name: `start-${turn}`, pollMs: 5, entry });
      measured.set(name, {
        wall: server.startMs,
        cpu: cpuMs(server.pid),
        rss: rssBytes(server.pid) / 1048576,
      });
      await server.stop();
    }
    rounds.push(measured);
    console.log(
      `round ${round + 1}/${starts}: ${[...measured].map(([name, m]) => `${name} ${m.wall.toFixed(0)} ms (CPU ${m.cpu})`).join(", ")}`,
    );
  }
  const ratio = (a: string, b: string, key: "wall" | "cpu") =>
    median(rounds.map((r) => (r.get(a)?.[key] ?? Number.NaN) / (r.get(b)?.[key] ?? Number.NaN))).toFixed(3);
  console.log(
    "\n| server | wall ms | CPU ms | RSS MB | wall / first | CPU / first | wall / fastify | CPU / fastify |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const { name } of contestants) {
    const wall = median(rounds.map((r) => r.get(name)?.wall ?? Number.NaN)).toFixed(0);
    const cpu = median(rounds.map((r) => r.get(name)?.cpu ?? Number.NaN)).toFixed(0);
    const rss = median(rounds.map((r) => r.get(name)?.rss ?? Number.NaN)).toFixed(0);
    const first = builds[0] as string;
    console.log(
      `| ${name} | ${wall} | ${cpu} | ${rss} | ${ratio(name, first, "wall")} | ${ratio(name, first, "cpu")} | ${ratio(name, "fastify", "wall")} | ${ratio(name, "fastify", "cpu")} |`,
    );
  }
} finally {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
}
