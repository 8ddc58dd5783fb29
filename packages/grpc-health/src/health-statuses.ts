import { HealthCheckResponse_ServingStatus as ServingStatus } from "./gen/grpc/health/v1/health_pb.js";

/**
 * The serving status of each service a health service answers for. `""` is the server as a whole.
 * Changes reach every open Watch stream of the service at once.
 */
export class HealthStatuses {
  readonly #wanted: Map<string, ServingStatus>;
  #shutDown = false;
  #watchesEnded = false;
  #version = 0;
  readonly #waiters = new Set<() => void>();

  /** Starts with `initial` (default: `""` SERVING, the server is up). */
  constructor(initial: Readonly<Record<string, ServingStatus>> = { "": ServingStatus.SERVING }) {
    this.#wanted = new Map(Object.entries(initial));
  }

  /** Sets the status of `service`. Ignored after {@link shutdown} until {@link resume}. */
  set(service: string, status: ServingStatus): void {
    if (this.#shutDown || this.#wanted.get(service) === status) return;
    this.#wanted.set(service, status);
    this.#changed();
  }

  /** The status of `service`, or undefined when it is unknown. */
  get(service: string): ServingStatus | undefined {
    const status = this.#wanted.get(service);
    return status !== undefined && this.#shutDown ? ServingStatus.NOT_SERVING : status;
  }

  /** Every known service with its status. */
  entries(): [string, ServingStatus][] {
    return [...this.#wanted.keys()].map((service) => [service, this.get(service) as ServingStatus]);
  }

  /** Every known service becomes NOT_SERVING, and stays so: later set() calls are ignored (grpc-go's Shutdown). */
  shutdown(): void {
    if (this.#shutDown) return;
    this.#shutDown = true;
    this.#changed();
  }

  /** Accepts set() calls again and restores what they set before shutdown(). */
  resume(): void {
    if (!this.#shutDown) return;
    this.#shutDown = false;
    this.#changed();
  }

  /**
   * Ends every Watch stream (with OK, after its last status) and every Watch started later: a
   * server draining its connections would otherwise wait for these streams, which never end by
   * themselves.
   */
  endWatches(): void {
    this.#watchesEnded = true;
    this.#changed();
  }

  /** A counter of changes, to wait for the next one without missing any (for Watch). */
  version(): number {
    return this.#version;
  }

  /**
   * Resolves with the new version once it differs from `seen` (at once if it already does), or
   * with undefined when watches end or `signal` aborts (for Watch).
   */
  changeAfter(seen: number, signal: AbortSignal): Promise<number | undefined> {
    return new Promise((resolve) => {
      const settle = () => {
        this.#waiters.delete(settle);
        signal.removeEventListener("abort", settle);
        resolve(this.#watchesEnded || signal.aborted ? undefined : this.#version);
      };
      if (this.#version !== seen || this.#watchesEnded || signal.aborted) {
        settle();
        return;
      }
      this.#waiters.add(settle);
      signal.addEventListener("abort", settle, { once: true });
    });
  }

  #changed(): void {
    this.#version += 1;
    for (const wake of this.#waiters) wake();
  }
}
