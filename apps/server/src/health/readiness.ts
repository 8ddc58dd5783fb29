import type { Db } from "@folio/db";
import type { Logger } from "pino";

/** Why the server is not ready, or `ready`. */
export type ReadinessState =
  | "ready"
  | "database-unreachable"
  | "database-read-only"
  | "migrations-pending"
  | "shutting-down";

/** Whether this instance should be sent traffic, kept current by a check of the database every second. */
export interface Readiness {
  /** The state of the last check; `shutting-down` from {@link beginShutdown} on. */
  readonly state: ReadinessState;
  /** Calls `listener` with each new state. */
  onChange(listener: (state: ReadinessState) => void): void;
  /** Checks the database now (and at start-up, before serving). */
  check(): Promise<ReadinessState>;
  /** Not ready from now on, whatever the database says; the checks stop. */
  beginShutdown(): void;
  /** Stops the checks. */
  stop(): void;
}

/** Options of {@link monitorReadiness}. */
export interface ReadinessOptions {
  readonly db: Pick<Db, "pendingMigrations" | "writable" | "readRoute">;
  readonly logger: Logger;
  /** Between the end of a check and the next (default 1 s). */
  readonly intervalMs?: number;
  /** A check that takes longer counts as the database unreachable (default 5 s). */
  readonly timeoutMs?: number;
  /**
   * How long the primary may answer read-only before a ready instance says so (default 3 s): a
   * new leader is routed to a moment before its promotion ends, and that must not take every
   * instance out of the load balancer; a stale route stays read-only.
   */
  readonly readOnlyGraceMs?: number;
}

/**
 * Checks the database in the background, one query at a time: probes (`/readyz`, gRPC health) read
 * the last result and never reach the database themselves, however often they come. Ready means
 * the primary answers, can write (a stale route to a demoted primary is not ready: its writes
 * would all fail) and has every migration applied. While the primary is unreachable (failing over)
 * and listings are served by replicas, the instance stays ready: taking every instance out of the
 * load balancer would fail the reads too, and writes fail fast with 503 and Retry-After.
 */
export function monitorReadiness(options: ReadinessOptions): Readiness {
  const intervalMs = options.intervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 5000;
  const readOnlyGraceMs = options.readOnlyGraceMs ?? 3000;
  let readOnlySince: number | undefined;
  const listeners: ((state: ReadinessState) => void)[] = [];
  let state: ReadinessState = "database-unreachable";
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const become = (next: ReadinessState) => {
    if (next === state) return;
    const previous = state;
    state = next;
    if (next === "ready") options.logger.info({ previous }, "ready");
    else options.logger.warn({ reason: next }, "not ready");
    for (const listener of listeners) listener(next);
  };

  const databaseState = async (): Promise<ReadinessState> => {
    let timeout: NodeJS.Timeout | undefined;
    try {
      const primaryState = async (): Promise<ReadinessState> => {
        if (!(await options.db.writable())) return "database-read-only";
        return (await options.db.pendingMigrations()).length === 0 ? "ready" : "migrations-pending";
      };
      return await Promise.race([
        primaryState(),
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(new Error("readiness check timed out")), timeoutMs);
        }),
      ]);
    } catch {
      // Listings still served by the replicas: ready, if the schema was up to date before.
      return options.db.readRoute() === "replica" && state === "ready" ? "ready" : "database-unreachable";
    } finally {
      clearTimeout(timeout);
    }
  };

  const check = async (): Promise<ReadinessState> => {
    let next = await databaseState();
    if (next !== "database-read-only") readOnlySince = undefined;
    else {
      readOnlySince ??= Date.now();
      if (state === "ready" && Date.now() - readOnlySince < readOnlyGraceMs) next = "ready";
    }
    if (!stopped) become(next);
    return state;
  };

  const loop = () => {
    timer = setTimeout(() => {
      void check().finally(() => {
        if (!stopped) loop();
      });
    }, intervalMs);
    // The checks alone never keep the process alive.
    timer.unref();
  };
  loop();

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  return {
    get state() {
      return state;
    },
    onChange: (listener) => listeners.push(listener),
    check,
    beginShutdown() {
      stop();
      become("shutting-down");
    },
    stop,
  };
}
