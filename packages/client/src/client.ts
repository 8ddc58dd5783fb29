import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import {
  type CallOptions as ConnectCallOptions,
  createClient,
  createContextValues,
  type Transport,
} from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import {
  type Folder,
  FolderSchema,
  FolderService,
  type Project,
  ProjectSchema,
  ProjectService,
} from "@folio/proto";
import type { TokenSource } from "./auth.js";
import { FolioError, folioErrorFromRest } from "./errors.js";
import { createRestClient, nextPageToken, policyFetch, type RestOptions } from "./rest.js";
import { NO_RETRIES, type RetryOptions } from "./retry.js";
import { deadlineKey, folioInterceptors } from "./rpc.js";

/** How a client talks to Folio: every protocol the server's one port serves. */
export type Protocol = "connect" | "grpc-web" | "grpc" | "rest";

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

/** Options of one call. */
export interface CallOptions {
  /** The call's deadline, from now, in ms: it covers every attempt and every wait between them. */
  readonly timeoutMs?: number;
  /** Aborts the call, retries included. */
  readonly signal?: AbortSignal;
}

/** A new folder: its name, and optionally its parent, colour and idempotency key. */
export interface CreateFolderInit {
  readonly name: string;
  readonly parentId?: string;
  readonly color?: string;
  /** Idempotency key (AIP-155); the client makes one when absent. */
  readonly requestId?: string;
}

/** Which projects to list. */
export interface ProjectFilters {
  readonly namePrefix?: string;
  readonly city?: string;
  readonly country?: string;
  readonly postalCode?: string;
  /** Projects per page (the server's default and maximum: 1000). */
  readonly pageSize?: number;
}

/** One page of projects, and the token of the next ("" on the last). */
export interface ProjectPage {
  readonly projects: Project[];
  readonly nextPageToken: string;
}

/** The Folio API, the same whichever protocol carries it. Failures are {@link FolioError}s. */
export interface FolioClient {
  readonly protocol: Protocol;
  /** Creates a folder; retried safely (one idempotency key for every attempt). */
  createFolder(request: CreateFolderInit, options?: CallOptions): Promise<Folder>;
  /** One page of the organisation's projects. */
  listProjects(
    request?: ProjectFilters & { readonly pageToken?: string },
    options?: CallOptions,
  ): Promise<ProjectPage>;
  /** Every project matching `filters`, page after page (each page's call has `options`). */
  projects(filters?: ProjectFilters, options?: CallOptions): AsyncGenerator<Project, void, undefined>;
}

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
      return createConnectTransport(common);
    case "grpc-web":
      return createGrpcWebTransport(common);
    case "grpc":
      if (grpc === undefined)
        throw new Error("protocol grpc needs HTTP/2: use it in Node (connect or grpc-web work everywhere)");
      return grpc({ baseUrl: options.baseUrl, interceptors });
  }
}

/** A FolioClient over `options.protocol`. */
export function buildFolioClient(
  options: FolioClientOptions,
  grpc: GrpcTransportFactory | undefined,
): FolioClient {
  const protocol = options.protocol ?? "connect";
  const client =
    protocol === "rest"
      ? restClient({ ...options, retry: retryOf(options) })
      : rpcClient(buildFolioTransport({ ...options, protocol }, grpc));
  return {
    protocol,
    ...client,
    async *projects(filters = {}, callOptions = {}) {
      let pageToken = "";
      do {
        const page = await client.listProjects({ ...filters, pageToken }, callOptions);
        yield* page.projects;
        pageToken = page.nextPageToken;
      } while (pageToken !== "");
    },
  };
}

type Calls = Pick<FolioClient, "createFolder" | "listProjects">;

function rpcClient(transport: Transport): Calls {
  const folders = createClient(FolderService, transport);
  const projects = createClient(ProjectService, transport);
  const callOptions = (options: CallOptions): ConnectCallOptions => ({
    ...options,
    contextValues: createContextValues().set(deadlineKey, deadlineOf(options)),
  });
  return {
    createFolder: (request, options = {}) =>
      typed(async () => {
        const { folder } = await folders.createFolder(request, callOptions(options));
        if (folder === undefined) throw new Error("the response holds no folder");
        return folder;
      }),
    listProjects: (request = {}, options = {}) =>
      typed(async () => {
        const { projects: list, nextPageToken } = await projects.listProjects(request, callOptions(options));
        return { projects: list, nextPageToken };
      }),
  };
}

function restClient(options: RestOptions & TokenSource): Calls {
  const rest = createRestClient(options);
  const init = (options_: CallOptions, keyedBody = false) => {
    const deadline = deadlineOf(options_);
    const signals = [
      options_.signal,
      deadline === undefined ? undefined : AbortSignal.timeout(deadline - Date.now()),
    ];
    const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
    return {
      fetch: policyFetch(options, { deadline, keyedBody }),
      ...(present.length === 0 ? {} : { signal: AbortSignal.any(present) }),
    };
  };
  return {
    createFolder: (request, callOptions = {}) =>
      typed(async () => {
        // The key travels in the body, as over RPC: a refusal of it names `requestId` alike.
        const body = { ...request, requestId: request.requestId || crypto.randomUUID() };
        const { data, error, response } = await rest.POST("/folders", { body, ...init(callOptions, true) });
        if (data === undefined) throw folioErrorFromRest(response.status, response.headers, error);
        return fromJson(FolderSchema, data.folder as JsonValue, { ignoreUnknownFields: true });
      }),
    listProjects: (request = {}, callOptions = {}) =>
      typed(async () => {
        const query = Object.fromEntries(
          Object.entries(request).filter(([, value]) => value !== undefined && value !== ""),
        );
        const { data, error, response } = await rest.GET("/projects", {
          params: { query },
          ...init(callOptions),
        });
        if (data === undefined) throw folioErrorFromRest(response.status, response.headers, error);
        return {
          projects: data.projects.map((project) =>
            fromJson(ProjectSchema, project as JsonValue, { ignoreUnknownFields: true }),
          ),
          nextPageToken: nextPageToken(response.headers.get("link")),
        };
      }),
  };
}

/**
 * Runs a call, its errors as FolioErrors: the transports raise some (a deadline, a network failure)
 * outside the interceptors.
 */
async function typed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (reason) {
    throw FolioError.from(reason);
  }
}

function retryOf(options: Pick<FolioClientOptions, "retry">): RetryOptions {
  return options.retry === false ? NO_RETRIES : (options.retry ?? {});
}

function deadlineOf(options: CallOptions): number | undefined {
  return options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
}
