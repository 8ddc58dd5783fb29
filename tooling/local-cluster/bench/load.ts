// Load through HAProxy: a mixed workload on a local cluster (tooling/local-cluster), then a check
// that every acknowledged create is in the database exactly once.
//
// Each of --connections keep-alive HTTP/1.1 connections (autocannon) repeats, for a random one of
// --orgs organisations (a token each):
//   1. GET  /api/v1/projects?pageSize=20                      (the org holds --projects projects)
//   2. POST /api/v1/folders {"name": <unique>}                 (no Idempotency-Key)
//   3. GET  /api/v1/projects?pageSize=20&namePrefix=Project%201
//   4. POST /api/v1/folders {"name": <unique>} with a new Idempotency-Key
//   5. the request of step 4 again, same key and body: a retry, answered with the same folder
// so 40% lists, 20% plain creates, 20% creates with a key, 20% replays. A warm-up of --warmup
// seconds precedes --duration measured seconds. Rate limits are on (Redis), with limits the load
// never reaches; instances log every request (LOG_LEVEL=info), as in production.
//
// Printed: throughput, latency p50/p99, responses by status, errors and timeouts, each instance's
// RSS before and after, and the database check. Exit code 1 when the check fails. A phase ends
// without waiting for the requests in flight: the folders they create are committed, but no client
// hears of them (at most one per connection and phase, more if requests failed).
//
// Usage (from the repository root, after `pnpm exec turbo run build --filter=@folio/server...`):
//   node tooling/local-cluster/bench/load.ts [--instances 3] [--duration 60] [--connections 100]
//     [--warmup 5] [--orgs 20] [--projects 200]
// DATABASE_URL names the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres).

import { randomUUID } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { type Cluster, startCluster } from "../src/index.ts";

const { values: args } = parseArgs({
  options: {
    instances: { type: "string", default: "3" },
    duration: { type: "string", default: "60" },
    connections: { type: "string", default: "100" },
    warmup: { type: "string", default: "5" },
    orgs: { type: "string", default: "20" },
    projects: { type: "string", default: "200" },
  },
});

/**
 * Numbers the folder names of the whole run: the warm-up and the measured phase must not send the
 * same name, or one name is created twice (in two orgs) and the check counts it as a duplicate.
 */
let sequence = 0;

/** What the clients were told about creates: the folder of each acknowledged name. */
interface Acknowledged {
  readonly byName: Map<string, string>;
  /** Replays whose folder differed from the first answer to the same key (must stay 0). */
  replayMismatches: number;
  keyed: number;
}

const MB = 1024 * 1024;
const machine = () =>
  `Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;

const cluster = await startCluster({
  instances: Number(args.instances),
  env: {
    RATE_LIMIT_TOKEN_REQUESTS: "100000000",
    RATE_LIMIT_ORG_REQUESTS: "100000000",
    LOG_LEVEL: "info",
  },
});
try {
  await run(cluster);
} finally {
  await cluster.stop();
}

async function run(cluster: Cluster): Promise<void> {
  const orgIds = Array.from({ length: Number(args.orgs) }, () => randomUUID());
  await cluster.sql(
    `INSERT INTO projects (org_id, name, city, country)
     SELECT org, 'Project ' || n, 'City ' || (n % 17), 'CH' FROM unnest($1::uuid[]) AS org, generate_series(1, $2::int) AS n`,
    [orgIds, Number(args.projects)],
  );
  await cluster.sql("ANALYZE projects");
  const tokens = await Promise.all(
    orgIds.map((org_id) => cluster.issuer.sign({ org_id, sub: randomUUID() }, {}, "2h")),
  );
  console.log(
    `${cluster.instances.length} instance(s) behind HAProxy ${cluster.url}, PgBouncer (transaction pooling), Redis; ` +
      `${args.connections} connections, ${args.orgs} orgs of ${args.projects} projects; ${machine()}`,
  );

  const acknowledged: Acknowledged = { byName: new Map(), replayMismatches: 0, keyed: 0 };
  const warmup = await drive(cluster, tokens, Number(args.warmup), acknowledged);
  console.log(`warm-up: ${Math.round(warmup.requests.average)} req/s`);
  const rssBefore = await Promise.all(cluster.instances.map((instance) => instance.rssBytes()));
  const result = await drive(cluster, tokens, Number(args.duration), acknowledged);
  const rssAfter = await Promise.all(cluster.instances.map((instance) => instance.rssBytes()));

  const byStatus = Object.entries(result.statusCodeStats ?? {})
    .map(([status, { count }]) => `${status}: ${count}`)
    .join(", ");
  console.log(`\nafter: ${machine()}`);
  console.log(`requests: ${result.requests.total} in ${result.duration.toFixed(1)} s`);
  console.log(`throughput: ${Math.round(result.requests.average)} req/s (mean of per-second counts)`);
  console.log(
    `latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
  );
  console.log(`responses by status: ${byStatus}`);
  console.log(`errors: ${result.errors} (timeouts ${result.timeouts})`);
  cluster.instances.forEach((instance, i) => {
    console.log(
      `${instance.name} RSS: ${((rssBefore[i] ?? 0) / MB).toFixed(0)} MB before, ${((rssAfter[i] ?? 0) / MB).toFixed(0)} MB after`,
    );
  });
  const failures = await verify(cluster, orgIds, acknowledged);
  if (failures.length > 0) {
    process.exitCode = 1;
    console.log(`FAILED: ${failures.join("; ")}`);
  }
}

/** Runs the workload for `seconds`, recording every acknowledged create in `acknowledged`. */
async function drive(
  cluster: Cluster,
  tokens: readonly string[],
  seconds: number,
  acknowledged: Acknowledged,
): Promise<autocannon.Result> {
  type Context = { token?: string; name?: string; key?: string; keyedId?: string };
  const headersOf = (context: Context) => ({
    authorization: `Bearer ${context.token}`,
    "content-type": "application/json",
  });
  const folderOf = (status: number, body: string): string | undefined =>
    status === 201 ? (JSON.parse(body) as { folder: { id: string } }).folder.id : undefined;
  const record = (name: string | undefined, id: string | undefined) => {
    if (name !== undefined && id !== undefined) acknowledged.byName.set(name, id);
  };
  return autocannon({
    url: cluster.url,
    connections: Number(args.connections),
    duration: seconds,
    requests: [
      {
        method: "GET",
        path: "/api/v1/projects?pageSize=20",
        setupRequest: (request, context: Context) => {
          context.token = tokens[Math.floor(Math.random() * tokens.length)];
          return { ...request, headers: headersOf(context) };
        },
      },
      {
        method: "POST",
        path: "/api/v1/folders",
        setupRequest: (request, context: Context) => {
          context.name = `plain ${process.pid}-${sequence++}`;
          return { ...request, headers: headersOf(context), body: JSON.stringify({ name: context.name }) };
        },
        onResponse: (status, body, context: Context) => record(context.name, folderOf(status, body)),
      },
      {
        method: "GET",
        path: "/api/v1/projects?pageSize=20&namePrefix=Project%201",
        setupRequest: (request, context: Context) => ({ ...request, headers: headersOf(context) }),
      },
      {
        method: "POST",
        path: "/api/v1/folders",
        setupRequest: (request, context: Context) => {
          context.name = `keyed ${process.pid}-${sequence++}`;
          context.key = randomUUID();
          return {
            ...request,
            headers: { ...headersOf(context), "idempotency-key": context.key },
            body: JSON.stringify({ name: context.name }),
          };
        },
        onResponse: (status, body, context: Context) => {
          const id = folderOf(status, body);
          context.keyedId = id;
          if (id !== undefined) acknowledged.keyed++;
          record(context.name, id);
        },
      },
      {
        method: "POST",
        path: "/api/v1/folders",
        setupRequest: (request, context: Context) => ({
          ...request,
          headers: { ...headersOf(context), "idempotency-key": context.key ?? "" },
          body: JSON.stringify({ name: context.name }),
        }),
        onResponse: (status, body, context: Context) => {
          const id = folderOf(status, body);
          if (id === undefined) return;
          if (context.keyedId === undefined) {
            // The first attempt was not acknowledged; this retry is the one that is.
            acknowledged.keyed++;
            record(context.name, id);
          } else if (id !== context.keyedId) {
            acknowledged.replayMismatches++;
          }
        },
      },
    ],
  });
}

/** Every acknowledged create in the database exactly once, with the id it was answered with. */
async function verify(
  cluster: Cluster,
  orgIds: readonly string[],
  acknowledged: Acknowledged,
): Promise<string[]> {
  const rows = await cluster.sql<{ name: string; ids: string[] }>(
    "SELECT name, array_agg(id::text) AS ids FROM folders WHERE org_id = ANY($1::uuid[]) GROUP BY name",
    [orgIds],
  );
  const inDatabase = new Map(rows.map((row) => [row.name, row.ids]));
  const failures: string[] = [];
  let missing = 0;
  let duplicated = 0;
  let otherId = 0;
  for (const [name, id] of acknowledged.byName) {
    const ids = inDatabase.get(name) ?? [];
    if (ids.length === 0) missing++;
    else if (ids.length > 1) duplicated++;
    else if (ids[0] !== id) otherId++;
  }
  const unacknowledged = rows.filter((row) => !acknowledged.byName.has(row.name)).length;
  const [keys] = await cluster.sql<{ n: number }>(
    "SELECT count(*)::int AS n FROM idempotency_keys WHERE org_id = ANY($1::uuid[])",
    [orgIds],
  );
  console.log(
    `\ndatabase check: ${acknowledged.byName.size} acknowledged creates (${acknowledged.keyed} with a key), ` +
      `${rows.length} folders; missing ${missing}, duplicated ${duplicated}, other id ${otherId}, ` +
      `replays answered with another folder ${acknowledged.replayMismatches}; ` +
      `folders no client was told of ${unacknowledged} (requests in flight when a phase ended, or failed); ` +
      `idempotency keys ${keys?.n ?? 0}`,
  );
  if (missing > 0) failures.push(`${missing} acknowledged creates missing`);
  if (duplicated > 0) failures.push(`${duplicated} names created more than once`);
  if (otherId > 0) failures.push(`${otherId} folders with another id than acknowledged`);
  if (acknowledged.replayMismatches > 0)
    failures.push(`${acknowledged.replayMismatches} replays with another folder`);
  if ((keys?.n ?? 0) < acknowledged.keyed)
    failures.push("fewer idempotency keys than acknowledged keyed creates");
  if (failures.length === 0) console.log("every acknowledged create is in the database exactly once");
  return failures;
}
