import { Code, createContextKey } from "@connectrpc/connect";
import { codeToString } from "@folio/googleapis";
import type { NodeRequest } from "../transport/node-handler.js";

/** How a request reached the server: the label values of the `protocol` metric label. */
export type Protocol = "rest" | "connect" | "grpc" | "grpc-web" | "http";

/**
 * What the server observed of one request, for the access log, the metrics and the trace, which
 * only read it. Each fact is written by the layer that knows it, once: the outermost layer gives
 * the id, dispatch the protocol (or the name of the server's own route), the layer that finds the
 * procedure the RPC, and the layer that decides the answer the code the client gets. Every value
 * is bounded (no ids but the request's own, no raw paths), so metrics may use them as labels.
 */
export class RequestFacts {
  #protocol: Protocol = "http";
  #method: string | undefined;
  #code: string | undefined;
  #intercepted = false;

  constructor(readonly requestId: string) {}

  /** The protocol; `http` for the server's own routes (and until dispatch knows). */
  get protocol(): Protocol {
    return this.#protocol;
  }

  /**
   * The RPC called (`folio.v1.FolderService/CreateFolder`) or the name of the server's own route
   * (`healthz`, `readyz`, `jwks`, `dev-token`, `docs`, `web`, `cors`); undefined when it matched neither.
   */
  get method(): string | undefined {
    return this.#method;
  }

  /** The Connect code of the answer (`ok`, `not_found`...), once the layer that decided it has said. */
  get code(): string | undefined {
    return this.#code;
  }

  /** Whether the call reached the interceptors, which then decide its code. */
  get intercepted(): boolean {
    return this.#intercepted;
  }

  /** Dispatch: the protocol the request speaks, and for the server's own routes their name. */
  routed(protocol: Protocol, route?: string): void {
    this.#protocol = protocol;
    if (route !== undefined) this.#method ??= route;
  }

  /** The RPC the request calls, as soon as a layer finds its procedure. */
  called(method: string): void {
    this.#method ??= method;
  }

  /** The outermost interceptor: the call reached the chain, whose outcome is its code. */
  intercept(method: string): void {
    this.#intercepted = true;
    this.#method = method;
  }

  /** The code the client gets, said by the layer that decides it; the first decision stands. */
  answered(code: string): void {
    this.#code ??= code;
  }

  /**
   * The code to report once the response is over: the one a layer decided; for a response cut off
   * before its end, `canceled`; for the server's own HTTP routes, which have no code, that of
   * their status (their status is their answer); `unknown` if no layer said (a defect).
   */
  outcome(status: number, finished: boolean): string {
    if (this.#code !== undefined) return this.#code;
    if (!finished) return "canceled";
    return this.#protocol === "http" ? codeOfStatus(status) : "unknown";
  }
}

/**
 * The code of an answer that carries none, by its HTTP status (google.rpc.Code's mapping, read
 * backwards): the server's own HTTP routes, and the few answers of connect-es given before a call
 * exists (an unsupported content type: 415).
 */
export function codeOfStatus(status: number): string {
  if (status < 400) return "ok";
  return codeToString(CODE_OF_STATUS[status] ?? Code.Unknown);
}

const CODE_OF_STATUS: Readonly<Record<number, Code>> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  405: Code.Unimplemented,
  408: Code.DeadlineExceeded,
  409: Code.Aborted,
  413: Code.ResourceExhausted,
  415: Code.InvalidArgument,
  429: Code.ResourceExhausted,
  500: Code.Internal,
  501: Code.Unimplemented,
  503: Code.Unavailable,
  504: Code.DeadlineExceeded,
};

const factsByRequest = new WeakMap<NodeRequest, RequestFacts>();

/** The facts of a request, in the context values of its call (for the interceptors). */
export const requestFactsKey = createContextKey<RequestFacts | undefined>(undefined, {
  description: "request facts",
});

/** Starts the facts of a request (the outermost layer does, once). */
export function startFacts(req: NodeRequest, requestId: string): RequestFacts {
  const facts = new RequestFacts(requestId);
  factsByRequest.set(req, facts);
  return facts;
}

/** The facts of a request started by {@link startFacts}. */
export function factsOf(req: NodeRequest): RequestFacts | undefined {
  return factsByRequest.get(req);
}

/** The Connect code of a call's outcome: `ok`, or the code of the error it failed with. */
export function outcomeCode(error?: unknown): string {
  if (error === undefined) return "ok";
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code in Code ? codeToString(code as Code) : codeToString(Code.Unknown);
}
