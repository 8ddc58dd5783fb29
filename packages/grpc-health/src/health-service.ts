import { create, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "./gen/grpc/health/v1/health_pb.js";
import { HealthStatuses } from "./health-statuses.js";

/** The services registerHealthService() adds: for a server that lets them through without authentication. */
export const healthServices: readonly DescService[] = [Health];

/**
 * Registers `grpc.health.v1.Health` (Check, Watch and List, per
 * https://github.com/grpc/grpc/blob/master/doc/health-checking.md) on a Connect router, answering
 * from `statuses`, which the server keeps current; returns them.
 */
export function registerHealthService(
  router: ConnectRouter,
  statuses: HealthStatuses = new HealthStatuses(),
): HealthStatuses {
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
        if (next === undefined) {
          // Past its deadline, or its client gone: the stream ends saying so (deadline_exceeded,
          // canceled), not as a success. Draining the server ends it normally.
          if (context.signal.aborted) throw ConnectError.from(context.signal.reason, Code.Canceled);
          return;
        }
        seen = next;
      }
    },
    list() {
      return {
        statuses: Object.fromEntries(
          statuses.entries().map(([service, status]) => [service, response(status)]),
        ),
      };
    },
  });
  return statuses;
}

function response(status: ServingStatus): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status });
}
