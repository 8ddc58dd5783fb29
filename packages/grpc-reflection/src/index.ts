/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha) for Connect routers,
 * answered from protobuf-es descriptors.
 */

/** The grpc.reflection.v1 service descriptor, for clients of a reflecting server. */
export { ServerReflection } from "./gen/grpc/reflection/v1/reflection_pb.js";
export {
  reflectionServices,
  registerServerReflection,
  type ServerReflectionOptions,
} from "./server-reflection.js";
