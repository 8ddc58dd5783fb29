import type { NodeRequest } from "./node-handler.js";
import type { Protocol } from "./request-report.js";

/**
 * The RPC protocol of a request to the Connect handler, by its content type (the gRPC and
 * gRPC-Web specifications and the Connect protocol's): `http` when it is none of them.
 */
export function rpcProtocolOf(req: NodeRequest): Protocol {
  const contentType = String(req.headers["content-type"] ?? "").toLowerCase();
  if (contentType.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType.startsWith("application/grpc")) return "grpc";
  if (
    contentType.startsWith("application/connect+") ||
    contentType.startsWith("application/json") ||
    contentType.startsWith("application/proto") ||
    // Connect's GET requests for side-effect-free methods carry no body and no content type.
    (req.method === "GET" && /[?&]connect=v1(&|$)/.test(req.url ?? ""))
  ) {
    return "connect";
  }
  return "http";
}
