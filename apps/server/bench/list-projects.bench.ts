// ListProjects latency: the first page against a page deep into a large organisation.
//
// Creates a database on real PostgreSQL, starts the server in this process (as the test harness
// does), seeds 1,000,000 projects across 100 organisations (one holding 200,000, the other 99
// sharing 800,000) and measures sequential requests, one keep-alive connection, of:
//
//   first  GET /api/v1/projects?pageSize=N
//   deep   the same listing from about project 150,000 of the large organisation on, reached by
//          following the Link rel="next" headers with pageSize=1000
//
// over REST and over the Connect protocol with JSON (POST /folio.v1.ProjectService/ListProjects).
// The requests of one page size (first and deep, each protocol) take turns, in a rotating order,
// so that all see the same state of the machine. Target (API
// semantics issue): the deep page within 1.5x of the first page.
//
// Usage (from the repository root, after `pnpm exec turbo run build`):
//   node apps/server/bench/list-projects.bench.ts [--requests 200] [--warmup 50] [--page-sizes 100,1000]
//     [--depth 150000] [--protocols rest,connect] [--keep]
// DATABASE_URL names the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
// the benchmark creates a database folio_bench_<random> on it and drops it at the end (--keep
// leaves it, to run EXPLAIN against it afterwards).

import { randomUUID } from "node:crypto";
import http from "node:http";
import { parseArgs } from "node:util";
import pg from "pg";
import {
  createBenchDatabase,
  machine,
  nextLink,
  printTable,
  type Response,
  removeDir,
  send,
  serverEnvironment,
  startServer,
  summarize,
} from "./support.ts";

const { values: args } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: "string", default: "200" },
    warmup: { type: "string", default: "50" },
    "page-sizes": { type: "string", default: "100,1000" },
    depth: { type: "string", default: "150000" },
    protocols: { type: "string", default: "rest,connect" },
    keep: { type: "boolean", default: false },
  },
});
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);
const PAGE_SIZES = args["page-sizes"].split(",").map(Number);
const DEPTH = Number(args.depth);
const PROTOCOLS = args.protocols.split(",") as ("rest" | "connect")[];

const TOTAL_PROJECTS = 1_000_000;
const BIG_ORG_PROJECTS = 200_000;
const ORGS = 100;
const WALK_PAGE_SIZE = 1000;

const database = await createBenchDatabase();
const setup = await serverEnvironment(database.url);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
let server: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  const started = performance.now();
  server = await startServer(setup.env);
  console.log(`database ${database.name}, server at ${server.baseUrl} (migrations applied)`);

  const orgs = Array.from({ length: ORGS }, () => randomUUID());
  const bigOrg = orgs[0] as string;
  await seed(pool, orgs);
  console.log(`seeded ${TOTAL_PROJECTS} projects in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const token = await setup.issuer.sign({ org_id: bigOrg, scope: "project:read" }, {}, "2h");
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const baseUrl = server.baseUrl;
  const auth = { authorization: `Bearer ${token}` };

  // Follow Link rel="next" to the page that starts after project DEPTH of the big org.
  let url = `/api/v1/projects?pageSize=${WALK_PAGE_SIZE}`;
  let seen = 0;
  let lastOfPreviousPage: { name: string; id: string } | undefined;
  while (seen < DEPTH) {
    const response = await send(agent, baseUrl, "GET", url, auth);
    const projects = listed(response, WALK_PAGE_SIZE);
    seen += projects.length;
    lastOfPreviousPage = projects[projects.length - 1];
    const next = nextLink(response.headers);
    if (next === undefined) throw new Error(`no next page after ${seen} projects`);
    url = next;
  }
  const deepToken = new URL(url, baseUrl).searchParams.get("pageToken") ?? "";
  console.log(
    `walked ${seen / WALK_PAGE_SIZE} pages of ${WALK_PAGE_SIZE}: the deep page starts after project ${seen}`,
  );
  console.log(`deep page token: ${deepToken.length} characters; ${machine()}\n`);

  type Target = (pageSize: number) => Promise<Response>;
  const rest = (pageToken: string): Target => {
    return (pageSize) => {
      const query = new URLSearchParams({ pageSize: String(pageSize) });
      if (pageToken !== "") query.set("pageToken", pageToken);
      return send(agent, baseUrl, "GET", `/api/v1/projects?${query}`, auth);
    };
  };
  const connect = (pageToken: string): Target => {
    return (pageSize) =>
      send(
        agent,
        baseUrl,
        "POST",
        "/folio.v1.ProjectService/ListProjects",
        { ...auth, "content-type": "application/json", "connect-protocol-version": "1" },
        JSON.stringify({ pageSize, pageToken }),
      );
  };

  // Every target of a page size is measured in the same loop, in an order that rotates on each
  // pass: a slower period of the machine, or a garbage collection, does not count against one alone.
  const rows: (string | number)[][] = [];
  for (const pageSize of PAGE_SIZES) {
    const targets = PROTOCOLS.flatMap((protocol) => {
      const make = protocol === "rest" ? rest : connect;
      return [
        { protocol, page: "first", send: make(""), ms: [] as number[] },
        { protocol, page: "deep", send: make(deepToken), ms: [] as number[] },
      ];
    });
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      for (let j = 0; j < targets.length; j++) {
        const target = targets[(i + j) % targets.length];
        if (target === undefined) continue;
        const response = await target.send(pageSize);
        const projects = listed(response, pageSize);
        if (i >= WARMUP) target.ms.push(response.ms);
        const firstName = projects[0]?.name ?? "";
        if (
          target.page === "deep" &&
          lastOfPreviousPage !== undefined &&
          firstName < lastOfPreviousPage.name
        ) {
          throw new Error("the deep page does not follow the walked pages");
        }
      }
    }
    for (let t = 0; t < targets.length; t += 2) {
      const [first, deep] = [targets[t], targets[t + 1]];
      if (first === undefined || deep === undefined) continue;
      const f = summarize(first.ms);
      const d = summarize(deep.ms);
      rows.push([first.protocol, pageSize, "first", f.p50, f.p95, f.mean, "", ""]);
      rows.push([
        deep.protocol,
        pageSize,
        `deep (${seen})`,
        d.p50,
        d.p95,
        d.mean,
        d.p50 / f.p50,
        d.mean / f.mean,
      ]);
    }
  }
  console.log(
    `${REQUESTS} sequential requests per row (after ${WARMUP} of warm-up), one keep-alive connection:\n`,
  );
  printTable(
    ["protocol", "pageSize", "page", "p50 ms", "p95 ms", "mean ms", "deep/first p50", "deep/first mean"],
    rows,
  );
  console.log(`\nafter: ${machine()}`);
  agent.destroy();

  // The query the server runs (services/projects.ts), as PostgreSQL plans it.
  if (lastOfPreviousPage !== undefined) {
    for (const pageSize of PAGE_SIZES) {
      console.log(`\nEXPLAIN ANALYZE, pageSize ${pageSize}, first page:`);
      await explain(pool, bigOrg, undefined, pageSize + 1);
      console.log(`\nEXPLAIN ANALYZE, pageSize ${pageSize}, deep page:`);
      await explain(pool, bigOrg, lastOfPreviousPage, pageSize + 1);
    }
  }
} finally {
  await server?.close();
  await pool.end();
  await removeDir(setup.dir);
  if (args.keep)
    console.log(`\nkept database ${database.name} (DROP DATABASE ${database.name} WITH (FORCE))`);
  else await database.drop();
}

/** The projects of a 200 response, checked to be a full page. */
function listed(response: Response, pageSize: number): { name: string; id: string }[] {
  if (response.status !== 200) {
    throw new Error(`HTTP ${response.status}: ${response.body.toString("utf8").slice(0, 300)}`);
  }
  const projects = (
    JSON.parse(response.body.toString("utf8")) as { projects: { name: string; id: string }[] }
  ).projects;
  if (projects.length !== pageSize) throw new Error(`expected ${pageSize} projects, got ${projects.length}`);
  return projects;
}

/**
 * One INSERT ... SELECT generate_series: project n belongs to the first org for n <= 200,000 and
 * to one of the other 99 otherwise. Names, streets, cities and postal codes come from md5(n), so
 * the name order is unrelated to the insertion (heap) order, as with real data; a few addresses
 * lack a part, as rows loaded by other systems may.
 */
async function seed(pool: pg.Pool, orgs: string[]): Promise<void> {
  await pool.query(
    `INSERT INTO projects (org_id, name, street, house_number, postal_code, city, country, created_at)
     SELECT ($1::uuid[])[CASE WHEN n <= $2 THEN 1 ELSE 2 + n % 99 END],
            kinds[1 + get_byte(h, 0) % array_length(kinds, 1)] || ' ' || cities[1 + get_byte(h, 1) % array_length(cities, 1)]
              || ' ' || substr(md5(n::text), 5, 8),
            CASE WHEN get_byte(h, 4) < 8 THEN NULL ELSE streets[1 + get_byte(h, 2) % array_length(streets, 1)] END,
            CASE WHEN get_byte(h, 4) < 12 THEN NULL ELSE (1 + get_byte(h, 3) % 240)::text END,
            CASE WHEN get_byte(h, 5) < 6 THEN NULL ELSE lpad(((get_byte(h, 6) * 256 + get_byte(h, 7)) % 100000)::text, 5, '0') END,
            CASE WHEN get_byte(h, 5) < 3 THEN NULL ELSE cities[1 + get_byte(h, 1) % array_length(cities, 1)] END,
            CASE WHEN get_byte(h, 5) < 3 THEN NULL ELSE countries[1 + get_byte(h, 1) % array_length(cities, 1)] END,
            now() - make_interval(secs => n)
     FROM generate_series(1, $3::int) AS n,
          LATERAL (SELECT decode(md5(n::text), 'hex') AS h) AS hash,
          (SELECT ARRAY['Office', 'Warehouse', 'Residence', 'School', 'Clinic', 'Bridge', 'Depot', 'Library',
                        'Tower', 'Plant', 'Campus', 'Hotel', 'Station', 'Museum', 'Harbour', 'Stadium'] AS kinds,
                  ARRAY['Amsterdam', 'Berlin', 'Hamburg', 'München', 'Wien', 'Zürich', 'Paris', 'Lyon', 'Madrid',
                        'Lisboa', 'Milano', 'Roma', 'København', 'Stockholm', 'Oslo', 'Helsinki', 'Praha',
                        'Kraków', 'Dublin', 'London', 'Bruxelles', 'Rotterdam', 'Göteborg', 'Tallinn'] AS cities,
                  ARRAY['NL', 'DE', 'DE', 'DE', 'AT', 'CH', 'FR', 'FR', 'ES', 'PT', 'IT', 'IT', 'DK', 'SE', 'NO',
                        'FI', 'CZ', 'PL', 'IE', 'GB', 'BE', 'NL', 'SE', 'EE'] AS countries,
                  ARRAY['Main Street', 'Station Road', 'Hauptstraße', 'Rue de la Paix', 'Calle Mayor', 'Via Roma',
                        'Kirkegade', 'Storgatan', 'Nowy Świat', 'High Street', 'Kerkstraat', 'Ringstraße'] AS streets
          ) AS lists`,
    [orgs, BIG_ORG_PROJECTS, TOTAL_PROJECTS],
  );
  await pool.query("ANALYZE projects");
}

async function explain(
  pool: pg.Pool,
  orgId: string,
  after: { name: string; id: string } | undefined,
  limit: number,
): Promise<void> {
  const values: unknown[] = [orgId];
  let keyset = "";
  if (after !== undefined) {
    values.push(after.name, after.id);
    keyset = " AND (name, id) > ($2, $3::uuid)";
  }
  values.push(limit);
  const { rows } = await pool.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (ANALYZE, BUFFERS)
     SELECT id, org_id, name, street, house_number, postal_code, city, country, created_at
     FROM projects WHERE org_id = $1::uuid${keyset} ORDER BY name, id LIMIT $${values.length}`,
    values,
  );
  for (const row of rows) console.log(`  ${row["QUERY PLAN"]}`);
}
