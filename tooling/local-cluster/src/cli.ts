// Starts a local cluster and keeps it running until Ctrl-C (SIGINT) or SIGTERM, then stops it
// cleanly: HAProxy, the Folio instances (drained), PgBouncer, Redis, and drops its database.
//
// Usage (from the repository root): pnpm cluster [--instances 3] [--port 8080] [--keep-files]
// DATABASE_URL names the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
// missing Debian packages (haproxy, pgbouncer, redis-server) are installed with apt-get when run
// as root. Needs the server built: `pnpm cluster` builds it first.

import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { startCluster } from "./cluster.ts";

const { values: args } = parseArgs({
  options: {
    instances: { type: "string", default: "3" },
    port: { type: "string" },
    "keep-files": { type: "boolean", default: false },
  },
});

const cluster = await startCluster({
  instances: Number(args.instances),
  install: true,
  keepFiles: args["keep-files"],
  ...(args.port === undefined ? {} : { port: Number(args.port) }),
});
const orgId = randomUUID();
const token = await cluster.issuer.sign({ org_id: orgId, sub: randomUUID() }, {}, "12h");
const lines = [
  `Folio behind HAProxy at ${cluster.url} (REST, Connect, gRPC-Web; gRPC over h2c)`,
  `HAProxy statistics: ${cluster.haproxy.statsUrl}   health checks on ${cluster.healthPath}`,
  ...cluster.instances.map((instance) => `  ${instance.name}: ${instance.url} (pid ${instance.process.pid})`),
  `PgBouncer (transaction pooling): ${cluster.pgbouncer.url}`,
  `PostgreSQL database: ${cluster.database.url}`,
  `Redis: ${cluster.redis.url}`,
  `Logs and configuration: ${cluster.dir}`,
  "",
  `A token for org ${orgId}, both scopes, valid 12 h:`,
  `  export FOLIO_TOKEN=${token}`,
  `  curl -s ${cluster.url}/api/v1/projects -H "Authorization: Bearer $FOLIO_TOKEN"`,
  `  grpcurl -plaintext -H "authorization: Bearer $FOLIO_TOKEN" ${new URL(cluster.url).host} list`,
  "",
  "Ctrl-C stops the cluster.",
];
process.stdout.write(`${lines.join("\n")}\n`);

await Promise.race([once(process, "SIGINT"), once(process, "SIGTERM")]);
process.stdout.write("stopping...\n");
await cluster.stop();
process.stdout.write("stopped\n");
