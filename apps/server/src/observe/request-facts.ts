import { Code, createContextKey } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { NodeRequest, NodeResponse } from "../transport/node-handler.js";

/** How a request reached the server: the label values of the `protocol` metric label. */
export type Protocol = "rest" | "connect" | "grpc" | "grpc-web" | "http";

/**
 * What the server learns about a request on its way through, for the access log, the metrics and
 * the trace: each layer fills in what it knows. Every value is bounded (no ids, no raw paths), so
 * metrics may use them as labels.
 */
export interface RequestFacts {
  readonly requestId: string;
  /** Set by dispatch once it knows where the request goes; `http` for the server's own routes. */
  protocol: Protocol;
  /**
   * The RPC the request called (`folio.v1.FolderService/CreateFolder`) or the name of the server's
   * own route (`healthz`, `readyz`, `jwks`, `dev-token`, `docs`, `web`); undefined when it matched neither.
   */
  method: string | undefined;
  /** The outcome as a Connect code (`ok`, `not_found`...), set when the call passed the interceptors. */
  code: string | undefined;
}

const factsByRequest = new WeakMap<NodeRequest, RequestFacts>();

/** The facts of a request, for the context values of its call. */
export const requestFactsKey = createContextKey<RequestFacts | undefined>(undefined, {
  description: "request facts",
});

/** Starts the facts of a request (the outermost layer does, once). */
export function startFacts(req: NodeRequest, requestId: string): RequestFacts {
  const facts: RequestFacts = { requestId, protocol: "http", method: undefined, code: undefined };
  factsByRequest.set(req, facts);
  return facts;
}

/** The facts of a request started by {@link startFacts}. */
export function factsOf(req: NodeRequest): RequestFacts | undefined {
  return factsByRequest.get(req);
}

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

/** The Connect code of a call's outcome: `ok`, or the code of the error it failed with. */
export function outcomeCode(error?: unknown): string {
  if (error === undefined) return "ok";
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code in Code ? codeToString(code as Code) : codeToString(Code.Unknown);
}

/** Codes of the HTTP statuses the server answers with before a call reaches the interceptors. */
const CODE_OF_STATUS: Readonly<Record<number, Code>> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.Unimplemented,
  405: Code.Unimplemented,
  408: Code.DeadlineExceeded,
  413: Code.ResourceExhausted,
  415: Code.InvalidArgument,
  429: Code.ResourceExhausted,
  500: Code.Internal,
  501: Code.Unimplemented,
  503: Code.Unavailable,
  504: Code.DeadlineExceeded,
};

/**
 * The code of a finished response: the one the interceptors recorded, else the gRPC status of a
 * trailers-only answer, else the code of its HTTP status (a payload refused before the
 * interceptors, an unknown path, the server's own routes).
 */
export function finalCode(facts: RequestFacts, res: NodeResponse): string {
  if (facts.code !== undefined) return facts.code;
  const grpcStatus = res.getHeader("grpc-status");
  if (grpcStatus !== undefined) {
    const code = Number(grpcStatus);
    return code === 0 ? "ok" : outcomeCode({ code });
  }
  if (res.statusCode >= 200 && res.statusCode < 400) return "ok";
  return codeToString(CODE_OF_STATUS[res.statusCode] ?? Code.Unknown);
}
