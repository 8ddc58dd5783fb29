/** The Folio client for Node: what ./index.js gives, and gRPC over HTTP/2 (connect-node). */
import type { DescService } from "@bufbuild/protobuf";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  buildFolioClient,
  buildFolioTransport,
  type FolioClientOptions,
  type GrpcTransportFactory,
  type ServiceClientOptions,
} from "./client.js";
import type { ServiceClient } from "./client-types.js";
import type { FolioClient } from "./folio-calls.js";

export * from "./exports.js";

const grpc: GrpcTransportFactory = ({ baseUrl, interceptors }) =>
  createGrpcTransport({ baseUrl, interceptors });

/** A client of `options.services` over Connect (default), gRPC-Web, gRPC or REST. */
export function createFolioClient<const S extends readonly DescService[]>(
  options: ServiceClientOptions<S>,
): ServiceClient<S[number]>;
/** A Folio client over Connect (default), gRPC-Web, gRPC or REST. */
export function createFolioClient(options: FolioClientOptions): FolioClient;
export function createFolioClient(
  options: FolioClientOptions & { readonly services?: readonly DescService[] },
) {
  return buildFolioClient(options, grpc);
}

/** A connect-es transport with the client's policy, for connect-query or createClient. */
export function createFolioTransport(options: Parameters<typeof buildFolioTransport>[0]) {
  return buildFolioTransport(options, grpc);
}
