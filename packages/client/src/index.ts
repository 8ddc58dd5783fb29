/**
 * The Folio client for browsers (and any runtime with fetch): Connect, gRPC-Web and REST. In Node
 * the package resolves to ./node.js instead, which adds gRPC.
 */
import {
  buildFolioClient,
  buildFolioTransport,
  type FolioClient,
  type FolioClientOptions,
} from "./client.js";

export * from "./exports.js";

/** A Folio client over Connect (default), gRPC-Web or REST; gRPC needs Node. */
export function createFolioClient(options: FolioClientOptions): FolioClient {
  return buildFolioClient(options, undefined);
}

/** A connect-es transport with the client's policy, for connect-query or createClient. */
export function createFolioTransport(options: Parameters<typeof buildFolioTransport>[0]) {
  return buildFolioTransport(options, undefined);
}
