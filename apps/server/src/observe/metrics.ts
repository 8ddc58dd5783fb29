import type { PoolStats } from "@folio/db";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Protocol } from "../transport/request-report.js";

/** Why an idempotent create was refused: the key's first request differs, or it still runs. */
export type IdempotencyConflict = "key_reused" | "in_progress";

/**
 * The server's Prometheus metrics (prom-client), one registry per server. Names follow
 * Prometheus' conventions (`folio_` prefix, base units, `_total` counters); label values are
 * bounded: RPC names, protocols, codes and reasons, never ids or paths.
 */
export interface Metrics {
  readonly registry: Registry;
  /** A request arrived (the in-flight gauge). */
  requestStarted(): void;
  /** A request ended after `seconds`; a probe's (`/healthz`, `/readyz`) is not counted. */
  requestFinished(labels: { method: string; protocol: Protocol; code: string }, seconds: number): void;
  /** A query failed: the database was unavailable (its reason) or something else (`other`). */
  queryFailed(reason: string): void;
  /** The rate limiter refused a call, under the policy (`org`, `token`) that was exhausted. */
  rateLimitRefused(policy: string): void;
  /** An idempotent create answered with the response remembered under its key. */
  idempotencyReplayed(): void;
  /** An idempotent create was refused because of its key. */
  idempotencyConflicted(reason: IdempotencyConflict): void;
  /** An attempt to load the signing keys failed: a fetch of the JWKS URL, or a changed JWKS file. */
  jwksFetchFailed(): void;
}

/**
 * The server's own routes that probes call (`/healthz`, `/readyz`): not API requests, so not in the
 * request counter or histogram. A kubelet or load balancer asks every few seconds, which would
 * outweigh a quiet instance's traffic, and `/readyz` answers 503 (`unavailable`) by design while
 * the instance drains or its database is away: counted, it would set off the server-errors alert.
 */
const PROBE_ROUTES: ReadonlySet<string> = new Set(["healthz", "readyz"]);

/** Latency buckets in seconds: from a cached read to a request that waited on a lock. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Creates the metrics, reading the pool's numbers at each scrape. */
export function createMetrics(options: { poolStats: () => PoolStats }): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "folio_rpc_requests_total",
    help: "Requests answered, by RPC method (or server route, but for the probes /healthz and /readyz), protocol and Connect code.",
    labelNames: ["method", "protocol", "code"] as const,
    registers,
  });
  const duration = new Histogram({
    name: "folio_rpc_request_duration_seconds",
    help: "Time from a request's arrival to the end of its response, by RPC method and protocol.",
    labelNames: ["method", "protocol"] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({
    name: "folio_rpc_requests_in_flight",
    help: "Requests arrived and not yet answered.",
    registers,
  });
  const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(options.poolStats()));
      },
    });
  poolGauge("folio_db_pool_connections", "Open connections of the database pool.", (s) => s.total);
  poolGauge(
    "folio_db_pool_idle_connections",
    "Open connections of the pool not serving a query.",
    (s) => s.idle,
  );
  poolGauge(
    "folio_db_pool_waiting_queries",
    "Queries waiting for a connection of the pool (all busy).",
    (s) => s.waiting,
  );
  const queryErrors = new Counter({
    name: "folio_db_query_errors_total",
    help: "Queries that failed, by reason: unreachable, pool-timeout, statement-timeout, lock-timeout, read-only, other.",
    labelNames: ["reason"] as const,
    registers,
  });
  const refusals = new Counter({
    name: "folio_rate_limit_refusals_total",
    help: "Calls refused by the rate limiter, by the policy that was exhausted (org, token).",
    labelNames: ["policy"] as const,
    registers,
  });
  const replays = new Counter({
    name: "folio_idempotency_replays_total",
    help: "Idempotent creates answered with the response remembered under their key.",
    registers,
  });
  const conflicts = new Counter({
    name: "folio_idempotency_conflicts_total",
    help: "Idempotent creates refused because of their key: key_reused (another request), in_progress.",
    labelNames: ["reason"] as const,
    registers,
  });
  const jwksFailures = new Counter({
    name: "folio_jwks_fetch_failures_total",
    help: "Failed loads of the signing keys: fetches of AUTH_JWKS_URL that failed (no answer, not 200, not a JWKS), changes of AUTH_JWKS_FILE that could not be used.",
    registers,
  });

  return {
    registry,
    requestStarted: () => inFlight.inc(),
    requestFinished(labels, seconds) {
      inFlight.dec();
      if (labels.protocol === "http" && PROBE_ROUTES.has(labels.method)) return;
      requests.inc(labels);
      duration.observe({ method: labels.method, protocol: labels.protocol }, seconds);
    },
    queryFailed: (reason) => queryErrors.inc({ reason }),
    rateLimitRefused: (policy) => refusals.inc({ policy }),
    idempotencyReplayed: () => replays.inc(),
    idempotencyConflicted: (reason) => conflicts.inc({ reason }),
    jwksFetchFailed: () => jwksFailures.inc(),
  };
}
