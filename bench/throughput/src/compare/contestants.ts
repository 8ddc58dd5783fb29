import { runGrpcCalls } from "./grpc-client.ts";
import { runH2load } from "./h2load.ts";
import { createFolderRequest, grpcFrame, listProjectsRequest } from "./protobuf.ts";
import type { Sample } from "./sample.ts";
import type { ServerKind } from "./servers.ts";
import { type LoadOptions, runWrk, type WrkRequest } from "./wrk.ts";

export const WORKLOADS = ["list-10", "list-1000", "list-1000-gzip", "list-1000-br", "create"] as const;
export type Workload = (typeof WORKLOADS)[number];

export const WORKLOAD_TITLE: Readonly<Record<Workload, string>> = {
  "list-10": "ListProjects, 10 rows (pageSize=10, first page)",
  "list-1000": "ListProjects, 1000 rows (pageSize=1000, first page)",
  "list-1000-gzip": "ListProjects, 1000 rows, Accept-Encoding: gzip (REST only)",
  "list-1000-br": "ListProjects, 1000 rows, Accept-Encoding: br (REST only)",
  create: "CreateFolder (a new top-level name per request, no Idempotency-Key)",
};

export const PAGE_SIZE: Readonly<Record<Exclude<Workload, "create">, number>> = {
  "list-10": 10,
  "list-1000": 1000,
  "list-1000-gzip": 1000,
  "list-1000-br": 1000,
};

/**
 * The coding a workload asks REST for (`Accept-Encoding`); the others ask for none. Only Folio
 * compresses: the hand-written baselines send every answer as it is, whatever the client accepts.
 */
export const ACCEPT_ENCODING: Readonly<Partial<Record<Workload, "gzip" | "br">>> = {
  "list-1000-gzip": "gzip",
  "list-1000-br": "br",
};

export const CONTESTANTS = [
  "fastify",
  "node-http",
  "grpc-js",
  "folio-rest",
  "folio-connect-json",
  "folio-connect-proto",
  "folio-grpc-web",
  "folio-grpc",
  "go-grpc",
  "go-gateway",
] as const;
export type Contestant = (typeof CONTESTANTS)[number];

/** The server each contestant is served by (the Folio ones share one process). */
export const SERVER_OF: Readonly<Record<Contestant, ServerKind>> = {
  fastify: "fastify",
  "node-http": "node-http",
  "grpc-js": "grpc-js",
  "folio-rest": "folio",
  "folio-connect-json": "folio",
  "folio-connect-proto": "folio",
  "folio-grpc-web": "folio",
  "folio-grpc": "folio",
  "go-grpc": "go-grpc",
  "go-gateway": "go-gateway",
};

/** Whether a contestant runs a workload: the compressed lists are Folio's REST alone. */
export function runs(contestant: Contestant, workload: Workload): boolean {
  return ACCEPT_ENCODING[workload] === undefined || contestant === "folio-rest";
}

/** The contestants that speak gRPC over HTTP/2 (driven by h2load and a node:http2 client, not wrk). */
export const GRPC_CONTESTANTS: readonly Contestant[] = ["grpc-js", "folio-grpc", "go-grpc"];

/** The contestants that answer Folio's REST (`/api/v1/...`). */
export const REST_CONTESTANTS: readonly Contestant[] = ["fastify", "node-http", "folio-rest", "go-gateway"];

/** The contestants of the Go peer, built from Debian's packages (go-peer/build.ts). */
export const GO_CONTESTANTS: readonly Contestant[] = ["go-grpc", "go-gateway"];

export const CONTESTANT_TITLE: Readonly<Record<Contestant, string>> = {
  fastify: "Fastify 5 + pg, REST",
  "node-http": "node:http + pg, REST",
  "grpc-js": "@grpc/grpc-js + pg, gRPC (h2c)",
  "folio-rest": "Folio, REST (/api/v1)",
  "folio-connect-json": "Folio, Connect, application/json",
  "folio-connect-proto": "Folio, Connect, application/proto",
  "folio-grpc-web": "Folio, gRPC-Web, application/grpc-web+proto",
  "folio-grpc": "Folio, gRPC (h2c)",
  "go-grpc": "grpc-go 1.33 + pgx, gRPC (h2c)",
  "go-gateway": "grpc-gateway 1.6 in front of grpc-go 1.33 + pgx (one process), REST",
};

const LIST_PROCEDURE = "/folio.v1.ProjectService/ListProjects";
const CREATE_PROCEDURE = "/folio.v1.FolderService/CreateFolder";
/**
 * gRPC-Web over HTTP/1.1, as a browser sends it to a cleartext server (browsers speak HTTP/2 over
 * TLS only); wrk reads each status from the body.
 */
const GRPC_WEB_CLIENT = "wrk (HTTP/1.1, grpc-status read from the body)";

/** How a contestant is driven through a workload, and by which load generator. */
export interface Drive {
  readonly client: string;
  /** One run; `prefix` makes the folder names of a create run its own. */
  run(baseUrl: string, prefix: string, options: LoadOptions): Promise<Sample>;
}

/** The headers of each protocol's requests. */
function headersOf(token: string) {
  const auth = { Authorization: `Bearer ${token}` };
  return {
    auth,
    connect: { ...auth, "Connect-Protocol-Version": "1" },
    grpcWeb: { ...auth, "Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1" },
  };
}

/** wrk sending one request, or (a function of the run's prefix) a new folder name each time. */
function wrk(request: WrkRequest | ((prefix: string) => WrkRequest)): Drive {
  return {
    client: "wrk (HTTP/1.1)",
    run: (baseUrl, prefix, options) =>
      runWrk(baseUrl, typeof request === "function" ? request(prefix) : request, options),
  };
}

/**
 * The load of a contestant and workload. `okDataBytes` is what a successful gRPC ListProjects
 * response of that contestant and workload carries (from the preflight), to count gRPC failures
 * h2load cannot see.
 */
export function driveOf(
  contestant: Contestant,
  workload: Workload,
  token: string,
  okDataBytes: number | undefined,
): Drive {
  const { auth, connect, grpcWeb } = headersOf(token);
  if (workload === "create") {
    switch (contestant) {
      case "fastify":
      case "node-http":
      case "folio-rest":
      case "go-gateway":
        return wrk((prefix) => ({
          method: "POST",
          path: "/api/v1/folders",
          headers: { ...auth, "Content-Type": "application/json" },
          uniqueFolder: { encoding: "json", prefix },
        }));
      case "folio-connect-json":
        return wrk((prefix) => ({
          method: "POST",
          path: CREATE_PROCEDURE,
          headers: { ...connect, "Content-Type": "application/json" },
          uniqueFolder: { encoding: "json", prefix },
        }));
      case "folio-connect-proto":
        return wrk((prefix) => ({
          method: "POST",
          path: CREATE_PROCEDURE,
          headers: { ...connect, "Content-Type": "application/proto" },
          uniqueFolder: { encoding: "proto", prefix },
        }));
      case "folio-grpc-web":
        return {
          ...wrk((prefix) => ({
            method: "POST",
            path: CREATE_PROCEDURE,
            headers: grpcWeb,
            uniqueFolder: { encoding: "grpc-web", prefix },
            grpcWeb: true,
          })),
          client: GRPC_WEB_CLIENT,
        };
      case "grpc-js":
      case "folio-grpc":
      case "go-grpc":
        return {
          client: "node:http2 client (in compare.ts; h2load cannot vary the body)",
          run: (baseUrl, prefix, options) =>
            runGrpcCalls(
              baseUrl,
              {
                path: CREATE_PROCEDURE,
                headers: { authorization: auth.Authorization },
                message: (connection, n) => createFolderRequest(`${prefix}-${connection}-${n}`),
              },
              options,
            ),
        };
    }
  }
  const pageSize = PAGE_SIZE[workload];
  switch (contestant) {
    case "fastify":
    case "node-http":
    case "folio-rest":
    case "go-gateway":
      return wrk({
        method: "GET",
        path: `/api/v1/projects?pageSize=${pageSize}`,
        headers: { ...auth, ...acceptEncoding(workload) },
      });
    case "folio-connect-json":
      return wrk({
        method: "POST",
        path: LIST_PROCEDURE,
        headers: { ...connect, "Content-Type": "application/json" },
        body: Buffer.from(JSON.stringify({ pageSize })),
      });
    case "folio-connect-proto":
      return wrk({
        method: "POST",
        path: LIST_PROCEDURE,
        headers: { ...connect, "Content-Type": "application/proto" },
        body: listProjectsRequest(pageSize),
      });
    case "folio-grpc-web":
      return {
        ...wrk({
          method: "POST",
          path: LIST_PROCEDURE,
          headers: grpcWeb,
          body: grpcFrame(listProjectsRequest(pageSize)),
          grpcWeb: true,
        }),
        client: GRPC_WEB_CLIENT,
      };
    case "grpc-js":
    case "folio-grpc":
    case "go-grpc":
      return {
        client: "h2load (HTTP/2 cleartext)",
        run: (baseUrl, _prefix, options) =>
          runH2load(
            baseUrl,
            {
              path: LIST_PROCEDURE,
              headers: {
                "content-type": "application/grpc",
                te: "trailers",
                authorization: auth.Authorization,
              },
              body: grpcFrame(listProjectsRequest(pageSize)),
              okDataBytes,
            },
            options,
          ),
      };
  }
}

/** The `Accept-Encoding` header of a workload, if it asks for a coding. */
export function acceptEncoding(workload: Workload): Record<string, string> {
  const coding = ACCEPT_ENCODING[workload];
  return coding === undefined ? {} : { "Accept-Encoding": coding };
}
