/**
 * The gRPC health checking protocol (grpc.health.v1: Check, Watch, List) for Connect routers.
 */

/** The grpc.health.v1 service descriptor and its messages, for clients of a health service. */
export {
  Health,
  type HealthCheckRequest,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus as ServingStatus,
  type HealthListResponse,
} from "./gen/grpc/health/v1/health_pb.js";
export { healthServices, registerHealthService } from "./health-service.js";
export { HealthStatuses } from "./health-statuses.js";
