import {
  type ConnectRouter,
  type ConnectRouterOptions,
  createConnectRouter,
  createContextKey,
  createMethodImplSpec,
  createServiceImplSpec,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import { procedurePath } from "@folio/http-transcoder";
import { recordAnsweredCode } from "../answered-code-gate.js";

/** A gate run for a call once its headers are known, before its body is read (connect-es's `requestGate`). */
export type RequestGate = (context: HandlerContext) => void | Promise<void>;

/** A method's implementation, the interceptors the router wraps it in, and the router's request gate. */
export interface RegisteredMethod {
  readonly spec: MethodImplSpec;
  readonly interceptors: readonly Interceptor[];
  /**
   * Runs before the request body is read, on every path a call may take: connect-es's handlers
   * run it themselves, the in-process paths (REST, unary Connect/gRPC/gRPC-Web) call it. A
   * ConnectError it throws is the call's answer, and the body is never read.
   */
  readonly requestGate: RequestGate;
}

/**
 * Set in a call's context values once the router's gate let it through, to the response headers
 * the gate set: a call the in-process path hands on to connect-es's handler (a body only
 * connect-es answers) is not gated twice, so it is neither authenticated nor counted against a
 * rate limit a second time, and its answer carries the headers of the one pass.
 */
const gatePassedKey = createContextKey<Headers | undefined>(undefined, {
  description: "request gate passed",
});

/**
 * A Connect router that also keeps what it was given: each method's implementation and its
 * interceptors, by request path (`/acme.v1.Library/GetBook`). The transcoder calls unary methods
 * of such a router in-process with the request message it built, through the same interceptors,
 * instead of encoding the message to binary for the router's handler and decoding its answer.
 */
export interface TranscodingRouter extends ConnectRouter {
  readonly registered: ReadonlyMap<string, RegisteredMethod>;
}

/**
 * Creates a {@link TranscodingRouter}: `createConnectRouter` with the same options, whose
 * `handlers` serve Connect, gRPC and gRPC-Web as usual. Give its methods to `createHttpTranscoder`
 * as `runner: createInProcessRunner(router.registered)`.
 */
export function createTranscodingRouter(options?: ConnectRouterOptions): TranscodingRouter {
  const gate = options?.requestGate;
  // The code of each call connect-es answers is recorded (recordAnsweredCode), whatever the gate.
  const requestGate: RequestGate = async (context) => {
    recordAnsweredCode(context);
    if (gate === undefined) return;
    const passed = context.values.get(gatePassedKey);
    if (passed !== undefined) {
      for (const [name, value] of passed) context.responseHeader.set(name, value);
      return;
    }
    await gate(context);
    context.values.set(gatePassedKey, context.responseHeader);
  };
  const router = createConnectRouter({ ...options, requestGate });
  const registered = new Map<string, RegisteredMethod>();
  const routerInterceptors = options?.interceptors ?? [];
  // As the Connect router does: options given to service() or rpc() replace the router's, so a
  // service's own interceptor list replaces the router's list, not adds to it.
  const interceptorsOf = (given: Partial<ConnectRouterOptions> | undefined): readonly Interceptor[] =>
    given !== undefined && "interceptors" in given ? (given.interceptors ?? []) : routerInterceptors;
  const register = (spec: MethodImplSpec, interceptors: readonly Interceptor[]) => {
    registered.set(procedurePath(spec.method), {
      spec,
      interceptors,
      requestGate,
    });
  };
  const transcoding: TranscodingRouter = {
    handlers: router.handlers,
    registered,
    service(service, implementation, serviceOptions) {
      router.service(service, implementation, serviceOptions);
      const spec = createServiceImplSpec(service, implementation);
      for (const method of Object.values(spec.methods)) register(method, interceptorsOf(serviceOptions));
      return this;
    },
    rpc(method, implementation, rpcOptions) {
      router.rpc(method, implementation, rpcOptions);
      register(createMethodImplSpec(method, implementation), interceptorsOf(rpcOptions));
      return this;
    },
  };
  return transcoding;
}
