import { create, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "./gen/grpc/health/v1/health_pb.js";

/** The services registerHealthService() adds: for a server that lets them through without authentication. */
export const healthServices: readonly DescService[] = [Health];

/**
 * The serving status of each service a health service answers for. `""` is the server as a whole.
 * Changes reach every open Watch stream of the service at once.
 */
export interface HealthStatuses {
  /** Sets the status of `service`. Ignored after {@link shutdown} until {@link resume}. */
  set(service: string, status: ServingStatus): void;
  /** The status of `service`, or undefined when it is unknown. */
  get(service: string): ServingStatus | undefined;
  /** Every known service becomes NOT_SERVING, and stays so: later set() calls are ignored (grpc-go's Shutdown). */
  shutdown(): void;
  /** Accepts set() calls again and restores what they set before shutdown(). */
  resume(): void;
  /**
   * Ends every Watch stream (with OK, after its last status) and every Watch started later: a server
   * draining its connections would otherwise wait for these streams, which never end by themselves.
   */
  endWatches(): void;
}

/** Options of {@link registerHealthService}. */
export interface HealthServiceOptions {
  /** The statuses to start with (default: `""` SERVING, the server is up). */
  readonly statuses?: Readonly<Record<string, ServingStatus>>;
}

/**
 * Registers `grpc.health.v1.Health` (Check, Watch and List, per
 * https://github.com/grpc/grpc/blob/master/doc/health-checking.md) on a Connect router and returns
 * the statuses it answers with, for the server to keep current.
 */
export function registerHealthService(
  router: ConnectRouter,
  options: HealthServiceOptions = {},
): HealthStatuses {
  const statuses = createStatuses(options.statuses ?? { "": ServingStatus.SERVING });
  router.service(Health, {
    check(request) {
      const status = statuses.get(request.service);
      if (status === undefined) {
        throw new ConnectError(`unknown service "${request.service}"`, Code.NotFound);
      }
      return response(status);
    },
    async *watch(request, context) {
      // An unknown service is SERVICE_UNKNOWN, and the stream stays open: it may become known.
      let seen = statuses.version();
      let sent: ServingStatus | undefined;
      for (;;) {
        const status = statuses.get(request.service) ?? ServingStatus.SERVICE_UNKNOWN;
        if (status !== sent) {
          yield response(status);
          sent = status;
        }
        const next = await statuses.changeAfter(seen, context.signal);
        if (next === undefined) return;
        seen = next;
      }
    },
    list() {
      return {
        statuses: Object.fromEntries(
          [...statuses.entries()].map(([service, status]) => [service, response(status)]),
        ),
      };
    },
  });
  return statuses;
}

function response(status: ServingStatus): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status });
}

interface Statuses extends HealthStatuses {
  entries(): Iterable<[string, ServingStatus]>;
  /** A counter of changes, to wait for the next one without missing any. */
  version(): number;
  /**
   * Resolves with the new version once it differs from `seen` (at once if it already does), or
   * with undefined when watches end or `signal` aborts.
   */
  changeAfter(seen: number, signal: AbortSignal): Promise<number | undefined>;
}

function createStatuses(initial: Readonly<Record<string, ServingStatus>>): Statuses {
  const wanted = new Map(Object.entries(initial));
  let shutDown = false;
  let watchesEnded = false;
  let version = 0;
  const waiters = new Set<() => void>();
  const changed = () => {
    version += 1;
    for (const wake of waiters) wake();
  };
  const current = (service: string) =>
    wanted.has(service) && shutDown ? ServingStatus.NOT_SERVING : wanted.get(service);

  return {
    set(service, status) {
      if (shutDown) return;
      if (wanted.get(service) === status) return;
      wanted.set(service, status);
      changed();
    },
    get: current,
    shutdown() {
      if (shutDown) return;
      shutDown = true;
      changed();
    },
    resume() {
      if (!shutDown) return;
      shutDown = false;
      changed();
    },
    endWatches() {
      watchesEnded = true;
      changed();
    },
    *entries() {
      for (const service of wanted.keys()) yield [service, current(service) as ServingStatus];
    },
    version: () => version,
    changeAfter(seen, signal) {
      return new Promise((resolve) => {
        const settle = () => {
          waiters.delete(settle);
          signal.removeEventListener("abort", settle);
          resolve(watchesEnded || signal.aborted ? undefined : version);
        };
        if (version !== seen || watchesEnded || signal.aborted) {
          settle();
          return;
        }
        waiters.add(settle);
        signal.addEventListener("abort", settle, { once: true });
      });
    },
  };
}
