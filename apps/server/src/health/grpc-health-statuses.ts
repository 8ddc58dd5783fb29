import type { DescService } from "@bufbuild/protobuf";
import { HealthStatuses, ServingStatus } from "@folio/grpc-health";
import type { Readiness, ReadinessState } from "./readiness.js";

/**
 * The gRPC health statuses of the server (`""`) and of each API service, following readiness:
 * SERVING while ready, NOT_SERVING while the database is unreachable or its schema is behind, and
 * NOT_SERVING for good once a shutdown begins.
 */
export function healthFollowing(readiness: Readiness, services: readonly DescService[]): HealthStatuses {
  const names = ["", ...services.map((service) => service.typeName)];
  const statusOf = (state: ReadinessState) =>
    state === "ready" ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  const health = new HealthStatuses(
    Object.fromEntries(names.map((name) => [name, statusOf(readiness.state)])),
  );
  readiness.onChange((state) => {
    if (state === "shutting-down") {
      health.shutdown();
      return;
    }
    for (const name of names) health.set(name, statusOf(state));
  });
  return health;
}
