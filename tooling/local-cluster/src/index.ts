/**
 * Several Folio instances on real infrastructure, on loopback ports: HAProxy in front (HTTP/1.1
 * and gRPC over h2c on one port, health checks), PgBouncer in transaction pooling mode before
 * PostgreSQL, and Redis for the shared rate limits. Used by the tests, the load benchmark and the
 * `pnpm cluster` command.
 */
export { type Cluster, type ClusterOptions, startCluster } from "./cluster.ts";
export { DEFAULT_DATABASE_SERVER_URL } from "./database.ts";
export { ensurePrograms, MissingProgramsError } from "./debian-packages.ts";
export type { FolioInstance } from "./folio-instance.ts";
export { type HaCluster, type HaClusterOptions, startHaCluster } from "./ha-cluster.ts";
export { ensureHaPrograms } from "./ha-packages.ts";
export type { HAProxy, ServerStats } from "./haproxy.ts";
export type { PatroniNode } from "./patroni.ts";
export type { PgBouncer } from "./pgbouncer.ts";
export type { Member, PostgresHA } from "./postgres-ha.ts";
export { waitFor } from "./wait.ts";
