// CreateFolder throughput: concurrent keep-alive clients creating folders over REST, against real
// PostgreSQL, without and with an Idempotency-Key header.
//
//   plain        POST /api/v1/folders {"name": <unique>}
//   idempotent   the same, with an Idempotency-Key header of a fresh UUID on every request (each
//                key is claimed in idempotency_keys, then completed in the folder's transaction)
//
// 50 clients (--connections), each a loop of one request at a time on its own keep-alive HTTP/1.1
// connection, each with a token of its own organisation (--orgs, fewer orgs share them round-robin).
// The server runs as its own process (`node dist/main.js`), so that the clients do not share its
// event loop; it has the default pool of 10 database connections (--pool). The modes
// alternate for --rounds rounds of --duration seconds each, after --warmup seconds of plain
// requests. At the end the rows of `folders` are counted against the 201 responses.
//
// Usage (from the repository root, after `pnpm exec turbo run build`):
//   node apps/server/bench/create-folder.bench.ts [--duration 10] [--rounds 2] [--connections 50]
//     [--orgs 50] [--warmup 2] [--pool 10] [--profile dir]
// DATABASE_URL names the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
// the benchmark creates a database folio_bench_<random> on it and drops it at the end.

import { randomUUID } from "node:crypto";
import http from "node:http";
import { parseArgs } from "node:util";
import pg from "pg";
import {
  createBenchDatabase,
  machine,
  printTable,
  removeDir,
  send,
  serverEnvironment,
  startServer,
  summarize,
} from "./support.ts";

const { values: args } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    connections: { type: "string", default: "50" },
    orgs: { type: "string", default: "50" },
    warmup: { type: "string", default: "2" },
    pool: { type: "string", default: "10" },
    // Write a CPU profile of the server process (.cpuprofile, for Chrome DevTools) into this directory.
    profile: { type: "string" },
  },
});

await measure();

type Mode = "plain" | "idempotent";

interface Phase {
  created: number;
  readonly failed: Map<number, number>;
  readonly latencies: number[];
  readonly seconds: number;
}

async function measure(): Promise<void> {
  const connections = Number(args.connections);
  const orgCount = Math.min(Number(args.orgs), connections);
  const duration = Number(args.duration);
  const rounds = Number(args.rounds);

  const database = await createBenchDatabase();
  const setup = await serverEnvironment(database.url, { DATABASE_POOL_SIZE: args.pool });
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  let stop: () => Promise<void> = async () => {};
  try {
    const server = await startServer(
      setup.env,
      args.profile === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", args.profile],
    );
    const baseUrl = server.baseUrl;
    stop = () => server.close();
    console.log(`database ${database.name}, server at ${baseUrl} (its own process, pool ${args.pool})`);
    console.log(`${connections} clients, ${orgCount} orgs; ${machine()}\n`);

    const tokens = await Promise.all(
      Array.from({ length: orgCount }, () =>
        setup.issuer.sign({ org_id: randomUUID(), scope: "files:upload" }, {}, "2h"),
      ),
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });

    let sequence = 0;
    const run = async (mode: Mode, seconds: number): Promise<Phase> => {
      const phase: Phase = { created: 0, failed: new Map(), latencies: [], seconds };
      const deadline = performance.now() + seconds * 1000;
      const client = async (i: number) => {
        const headers: Record<string, string> = {
          authorization: `Bearer ${tokens[i % orgCount]}`,
          "content-type": "application/json",
        };
        while (performance.now() < deadline) {
          if (mode === "idempotent") headers["idempotency-key"] = randomUUID();
          const body = JSON.stringify({ name: `Folder ${mode} ${i}-${sequence++}` });
          const response = await send(agent, baseUrl, "POST", "/api/v1/folders", headers, body);
          phase.latencies.push(response.ms);
          if (response.status === 201) {
            phase.created++;
          } else {
            phase.failed.set(response.status, (phase.failed.get(response.status) ?? 0) + 1);
            if (phase.failed.size === 1 && phase.failed.get(response.status) === 1) {
              console.log(
                `first non-201: HTTP ${response.status} ${response.body.toString("utf8").slice(0, 300)}`,
              );
            }
          }
        }
      };
      await Promise.all(Array.from({ length: connections }, (_, i) => client(i)));
      return phase;
    };

    let created = 0;
    let createdWithKey = 0;
    created += (await run("plain", Number(args.warmup))).created;

    const rows: (string | number)[][] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ["plain", "idempotent"] as const) {
        const phase = await run(mode, duration);
        created += phase.created;
        if (mode === "idempotent") createdWithKey += phase.created;
        const s = summarize(phase.latencies);
        const failures = [...phase.failed].map(([status, count]) => `${count} x ${status}`).join(", ");
        rows.push([
          mode,
          round,
          s.count,
          Math.round(s.count / duration),
          s.p50,
          s.p95,
          s.p99,
          failures === "" ? "0" : failures,
        ]);
      }
    }
    agent.destroy();
    printTable(["mode", "round", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "non-201"], rows);
    console.log(`\nafter: ${machine()}`);

    const folders = Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM folders")).rows[0]?.n);
    const keys = Number(
      (
        await pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM idempotency_keys WHERE response IS NOT NULL",
        )
      ).rows[0]?.n,
    );
    console.log(`rows in folders: ${folders}, 201 responses (warm-up included): ${created}`);
    console.log(`completed idempotency keys: ${keys}, 201 responses with a key: ${createdWithKey}`);
    if (folders !== created || keys !== createdWithKey) {
      process.exitCode = 1;
      console.log("MISMATCH: the rows do not match the 201 responses");
    }
  } finally {
    await stop();
    await pool.end();
    await removeDir(setup.dir);
    await database.drop();
  }
}
