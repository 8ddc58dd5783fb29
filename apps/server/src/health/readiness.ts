import type { Db } from "@folio/db";
import type { Logger } from "pino";

/** Why the server is not ready, or `ready`. */
export type ReadinessState =
  | "ready"
  | "database-unreachable"
  | "database-read-only"
  | "migrations-pending"
  | "signing-keys-unavailable"
  | "shutting-down";

/**
 * Whether this instance should be sent traffic, kept current by a check of the database (and of the
 * signing keys) every second.
 */
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
  readonly db: Pick<Db, "pendingMigrations" | "writable" | "replicaAnswers">;
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
  /**
   * Whether tokens can be verified (see health/signing-keys.ts); while not, no call but a public
   * one can succeed, so the instance is not ready. Unset: always.
   */
  readonly signingKeysAvailable?: () => boolean;
}

/**
 * Checks the database in the background, one query at a time: probes (`/readyz`, gRPC health) read
 * the last result and never reach the database themselves, however often they come. Ready means
 * the primary answers, can write (a stale route to a demoted primary is not ready: its writes
 * would all fail) and has every migration applied. While the primary is unreachable (failing over)
 * and a replica answers, an instance that was ready stays so: listings are served by the replica,
 * writes fail fast with 503 and Retry-After, and taking every instance out of the load balancer
 * would fail the reads too. With a database ready, an instance that cannot verify tokens (no usable
 * signing keys: its JWKS URL fails and none is cached) is not ready either.
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
    try {
      return await within(timeoutMs, async () => {
        if (!(await options.db.writable())) return "database-read-only";
        return (await options.db.pendingMigrations()).length === 0 ? "ready" : "migrations-pending";
      });
    } catch {
      // The primary is failing over. Listings fall back to a replica whatever its lag, so an
      // instance that was ready stays so while one answers: the lag-based read route would flip
      // every instance out of the load balancer at once when a standby's lag reads high for a
      // moment (replaying the new leader's first WAL after seconds without a transaction).
      if (state !== "ready") return "database-unreachable";
      const replicaAnswers = await within(timeoutMs, () => options.db.replicaAnswers()).catch(() => false);
      return replicaAnswers ? "ready" : "database-unreachable";
    }
  };

  const check = async (): Promise<ReadinessState> => {
    let next = await databaseState();
    if (next !== "database-read-only") readOnlySince = undefined;
    else {
      readOnlySince ??= Date.now();
      if (state === "ready" && Date.now() - readOnlySince < readOnlyGraceMs) next = "ready";
    }
    if (next === "ready" && options.signingKeysAvailable?.() === false) next = "signing-keys-unavailable";
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

/** Runs `work`, rejecting when it has not settled within `ms`. */
async function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timeout: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timeout = setTimeout(() => reject(new Error(`readiness check took over ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timeout);
  }
}
