/** The Folio client for Node: what ./index.js gives, and gRPC over HTTP/2 (connect-node). */
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  buildFolioClient,
  buildFolioTransport,
  type FolioClient,
  type FolioClientOptions,
  type GrpcTransportFactory,
} from "./client.js";

export * from "./exports.js";

const grpc: GrpcTransportFactory = ({ baseUrl, interceptors }) =>
  createGrpcTransport({ baseUrl, interceptors });

/** A Folio client over Connect (default), gRPC-Web, gRPC or REST. */
export function createFolioClient(options: FolioClientOptions): FolioClient {
  return buildFolioClient(options, grpc);
}

/** A connect-es transport with the client's policy, for connect-query or createClient. */
export function createFolioTransport(options: Parameters<typeof buildFolioTransport>[0]) {
  return buildFolioTransport(options, grpc);
}
