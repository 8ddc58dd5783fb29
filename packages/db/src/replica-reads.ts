import { asUnavailable } from "./database-errors.js";

/** Where reads go now. */
export type ReadRoute = "replica" | "primary";

/** Options of {@link routeReads}. */
export interface ReadRoutingOptions {
  /** The replica's replay lag in milliseconds; rejects when the replica cannot be queried. */
  readonly replicaLagMs: () => Promise<number>;
  /** Past this lag reads go to the primary. */
  readonly maxLagMs: number;
  /** Between the end of a lag check and the next. */
  readonly intervalMs: number;
  /** Told of each change of route, with the reason. */
  readonly onChange?: (route: ReadRoute, reason: string) => void;
}

/** Reads sent to a replica while it can serve them, to the primary otherwise. */
export interface ReadRouting {
  readonly route: ReadRoute;
  /**
   * Runs a read where the route says. A read the replica fails is run on the primary (and the
   * replica is not used again until a lag check passes); a read the primary cannot serve
   * (unreachable: failing over) is run on the replica, whatever its lag: stale rows beat none.
   */
  read<T>(onReplica: () => Promise<T>, onPrimary: () => Promise<T>): Promise<T>;
  /** Checks the replica now; resolves with the route. */
  check(): Promise<ReadRoute>;
  stop(): void;
}

/** Starts checking the replica's lag every `intervalMs` and routes reads by it. */
export function routeReads(options: ReadRoutingOptions): ReadRouting {
  let route: ReadRoute = "primary";
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const become = (next: ReadRoute, reason: string) => {
    if (next === route) return;
    route = next;
    options.onChange?.(next, reason);
  };
  const check = async (): Promise<ReadRoute> => {
    try {
      const lagMs = await options.replicaLagMs();
      if (lagMs > options.maxLagMs)
        become("primary", `replica lag ${Math.round(lagMs)} ms > ${options.maxLagMs} ms`);
      else become("replica", `replica lag ${Math.round(lagMs)} ms`);
    } catch (error) {
      become("primary", `replica unavailable: ${(error as Error).message}`);
    }
    return route;
  };
  const loop = () => {
    timer = setTimeout(() => {
      void check().finally(() => {
        if (!stopped) loop();
      });
    }, options.intervalMs);
    timer.unref();
  };
  void check().finally(() => {
    if (!stopped) loop();
  });
  return {
    get route() {
      return route;
    },
    async read(onReplica, onPrimary) {
      if (route === "replica") {
        try {
          return await onReplica();
        } catch (error) {
          // Whatever the replica failed with (down, a query cancelled by a recovery conflict), the
          // primary can answer the same read.
          const failure = asUnavailable(error) ?? (error as Error);
          become("primary", `a read failed on the replica: ${failure.message}`);
          return onPrimary();
        }
      }
      try {
        return await onPrimary();
      } catch (error) {
        const unavailable = asUnavailable(error);
        if (unavailable === undefined || unavailable.reason === "lock-timeout") throw error;
        return onReplica().catch(() => Promise.reject(error));
      }
    },
    check,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * The replay lag of a standby in milliseconds: 0 when it has replayed all it received (an idle
 * primary writes nothing, and the time since the last replayed transaction would grow for ever),
 * else the age of the last transaction it replayed; 0 for a server that is not a standby.
 */
export const REPLICA_LAG_SQL = `
  SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
    ELSE COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000, 0)
  END::float8 AS lag_ms`;
