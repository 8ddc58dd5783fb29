// Starts a local cluster and keeps it running until SIGTERM, SIGINT (Ctrl-C) or SIGHUP, then stops
// it cleanly: HAProxy, the Folio instances (drained), PgBouncer, Redis (with --ha: the PostgreSQL
// nodes, etcd), and drops its database. A signal during the start stops what has started so far.
// A second signal, or STOP_BOUND_MS without being done, kills what is left. Then it ends by the
// signal it got (status 143, 130 or 129), or exits 1 if it could not stop everything.
//
// Usage (from the repository root): pnpm cluster [--instances 3] [--port 8080] [--keep-files] [--ha]
// DATABASE_URL names the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
// missing Debian packages (haproxy, pgbouncer, redis-server) are installed with apt-get when run
// as root. Needs the server built: `pnpm cluster` builds it first.
//
// --ha: a highly available PostgreSQL of the cluster's own instead (etcd, three PostgreSQL nodes
// under Patroni, HAProxy's primary and replica ports; Debian's patroni and etcd-server installed
// when missing), two Folio instances by default, with DATABASE_URL and DATABASE_READ_URL.

import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { startCluster } from "./cluster.ts";
import { startHaCluster } from "./ha-cluster.ts";
import { listenForStopSignals } from "./stop-signals.ts";

/** How long a stop may take before what is left is killed: instances drain for seconds. */
const STOP_BOUND_MS = 60_000;

// From the start, so that a signal while starting stops what has started instead of orphaning it.
const requests = listenForStopSignals({ hurryAfterMs: STOP_BOUND_MS });
requests.stop.addEventListener("abort", () =>
  process.stdout.write(`${requests.received}: stopping (a second signal kills what is left)...\n`),
);
requests.hurry.addEventListener("abort", () =>
  process.stdout.write(`${(requests.hurry.reason as Error).message}: killing what is left\n`),
);

const { values: args } = parseArgs({
  options: {
    instances: { type: "string" },
    port: { type: "string" },
    "keep-files": { type: "boolean", default: false },
    ha: { type: "boolean", default: false },
  },
});

const common = {
  install: true,
  keepFiles: args["keep-files"],
  signal: requests.stop,
  kill: requests.hurry,
  // The CLI alone hears a terminal's Ctrl-C or hangup, and stops the processes in order.
  detached: true,
  ...(args.port === undefined ? {} : { port: Number(args.port) }),
  ...(args.instances === undefined ? {} : { instances: Number(args.instances) }),
};
const cluster = await (args.ha ? startHaCluster(common) : startCluster(common)).catch((error: unknown) => {
  // An abandoned start has already stopped what it had started.
  if (!requests.stop.aborted) throw error;
  process.stdout.write("stopped\n");
  return requests.exit();
});
const orgId = randomUUID();
const token = await cluster.issuer.sign({ org_id: orgId, sub: randomUUID() }, {}, "12h");
const database =
  "pgbouncer" in cluster
    ? [
        `HAProxy health checks on ${cluster.healthPath}`,
        `PgBouncer (transaction pooling): ${cluster.pgbouncer.url}`,
        `PostgreSQL database: ${cluster.database.url}`,
      ]
    : [
        `PostgreSQL primary (HAProxy, checked on Patroni's GET /primary): ${cluster.postgres.primaryUrl(cluster.databaseName)}`,
        `PostgreSQL replicas (HAProxy, checked on GET /replica): ${cluster.postgres.replicaUrl(cluster.databaseName)}`,
        `  HAProxy statistics for PostgreSQL: ${cluster.postgres.statsUrl} (Prometheus: ${cluster.postgres.statsUrl}metrics)`,
        ...cluster.postgres.nodes.map(
          (node) =>
            `  ${node.name}: PostgreSQL 127.0.0.1:${node.pgPort}, Patroni ${node.restUrl} (patronictl -c ${cluster.dir}/pg/patroni-${node.name}.yml list)`,
        ),
        `etcd: http://127.0.0.1:${cluster.postgres.etcd.clientPort}`,
      ];
const lines = [
  `Folio behind HAProxy at ${cluster.url} (REST, Connect, gRPC-Web; gRPC over h2c)`,
  `HAProxy statistics: ${cluster.haproxy.statsUrl} (Prometheus: ${cluster.haproxy.statsUrl}metrics)`,
  ...cluster.instances.map((instance) => `  ${instance.name}: ${instance.url} (pid ${instance.process.pid})`),
  ...database,
  `Redis: ${cluster.redis.url}`,
  `Logs and configuration: ${cluster.dir}`,
  "",
  `A token for org ${orgId}, every scope of the API, valid 12 h:`,
  `  export FOLIO_TOKEN=${token}`,
  `  curl -s ${cluster.url}/api/v1/projects -H "Authorization: Bearer $FOLIO_TOKEN"`,
  `  grpcurl -plaintext -H "authorization: Bearer $FOLIO_TOKEN" ${new URL(cluster.url).host} list`,
  "",
  "Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the cluster.",
];
if (!requests.stop.aborted) {
  process.stdout.write(`${lines.join("\n")}\n`);
  await once(requests.stop, "abort");
}
try {
  await cluster.stop();
} catch (error) {
  process.stderr.write(`stopping failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
}
process.stdout.write("stopped\n");
requests.exit();
