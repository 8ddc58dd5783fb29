import {
  type ConnectRouter,
  type ConnectRouterOptions,
  createConnectRouter,
  createMethodImplSpec,
  createServiceImplSpec,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";

/** A method's implementation and the interceptors the router wraps it in. */
export interface RegisteredMethod {
  readonly spec: MethodImplSpec;
  readonly interceptors: readonly Interceptor[];
}

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
 * `handlers` serve Connect, gRPC and gRPC-Web as usual. Give it to `createHttpTranscoder` as
 * `router`.
 */
export function createTranscodingRouter(options?: ConnectRouterOptions): TranscodingRouter {
  const router = createConnectRouter(options);
  const registered = new Map<string, RegisteredMethod>();
  const routerInterceptors = options?.interceptors ?? [];
  // As the Connect router does: options given to service() or rpc() replace the router's, so a
  // service's own interceptor list replaces the router's list, not adds to it.
  const interceptorsOf = (given: Partial<ConnectRouterOptions> | undefined): readonly Interceptor[] =>
    given !== undefined && "interceptors" in given ? (given.interceptors ?? []) : routerInterceptors;
  const register = (spec: MethodImplSpec, interceptors: readonly Interceptor[]) => {
    registered.set(`/${spec.method.parent.typeName}/${spec.method.name}`, { spec, interceptors });
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
