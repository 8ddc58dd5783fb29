import type { DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { createContextValues, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import type { TokenSource } from "./auth.js";
import type { CallOptions, Protocol, ServiceClient } from "./client-types.js";
import { type FolioClient, withFolioCalls } from "./folio-calls.js";
import { restCaller } from "./rest-call.js";
import { NO_RETRIES, type RetryOptions } from "./retry.js";
import { deadlineKey, folioInterceptors } from "./rpc.js";
import { buildServiceClient, type UnaryCaller } from "./service-client.js";
import { type FolioService, folioServices } from "./services.js";

/** Where Folio is, how to talk to it and which token to send. */
export type FolioClientOptions = TokenSource & {
  /** The server's origin, e.g. `https://folio.example.com`. */
  readonly baseUrl: string;
  /** Default `connect`. `grpc` needs Node (HTTP/2). */
  readonly protocol?: Protocol;
  /** How to retry calls that failed for a passing reason; `false`: never. */
  readonly retry?: RetryOptions | false;
  /** The fetch to send requests with (Connect, gRPC-Web and REST; default: the global one). */
  readonly fetch?: typeof fetch;
};

/** Options of a client of the services it names instead of Folio's. */
export type ServiceClientOptions<S extends readonly DescService[]> = FolioClientOptions & {
  /** The services whose methods the client offers, e.g. `[FolderService]`. */
  readonly services: S;
};

/** Makes the gRPC transport (Node only); undefined where there is none. */
export type GrpcTransportFactory = (options: {
  baseUrl: string;
  interceptors: ReturnType<typeof folioInterceptors>;
}) => Transport;

/** A connect-es transport to Folio with the client's policy: typed errors, idempotency keys, retries, tokens. */
export function buildFolioTransport(
  options: Omit<FolioClientOptions, "protocol"> & { readonly protocol?: Exclude<Protocol, "rest"> },
  grpc: GrpcTransportFactory | undefined,
): Transport {
  const interceptors = folioInterceptors(options, retryOf(options));
  const common = {
    baseUrl: options.baseUrl,
    interceptors,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  switch (options.protocol ?? "connect") {
    case "connect":
      // A method the proto declares NO_SIDE_EFFECTS goes as a Connect GET (connect-web checks the
      // descriptor): its answer carries an ETag and can be revalidated from the HTTP cache.
      return createConnectTransport({ ...common, useHttpGet: true });
    case "grpc-web":
      return createGrpcWebTransport(common);
    case "grpc":
      if (grpc === undefined)
        throw new Error("protocol grpc needs HTTP/2: use it in Node (connect or grpc-web work everywhere)");
      return grpc({ baseUrl: options.baseUrl, interceptors });
  }
}

/** A FolioClient of Folio's services, or a client of `options.services`, over `options.protocol`. */
export function buildFolioClient(
  options: FolioClientOptions & { readonly services?: readonly DescService[] },
  grpc: GrpcTransportFactory | undefined,
): FolioClient | ServiceClient<DescService> {
  const protocol = options.protocol ?? "connect";
  const caller =
    protocol === "rest"
      ? restCaller({ ...options, retry: retryOf(options) })
      : rpcCaller(buildFolioTransport({ ...options, protocol }, grpc));
  if (options.services !== undefined) return buildServiceClient(options.services, protocol, caller);
  // folioServices holds the services FolioService's type is read from.
  return withFolioCalls(
    buildServiceClient(folioServices, protocol, caller) as unknown as ServiceClient<FolioService>,
  );
}

/** Calls methods over a connect-es transport, the call's deadline passed on to the retries. */
function rpcCaller(transport: Transport): UnaryCaller {
  return async (method, request, options) => {
    const contextValues = createContextValues().set(deadlineKey, deadlineOf(options));
    const response = await transport.unary(
      method as DescMethodUnary,
      options.signal,
      options.timeoutMs,
      undefined,
      request,
      contextValues,
    );
    return response.message;
  };
}

function retryOf(options: Pick<FolioClientOptions, "retry">): RetryOptions {
  return options.retry === false ? NO_RETRIES : (options.retry ?? {});
}

function deadlineOf(options: CallOptions): number | undefined {
  return options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
}
