/**
 * The Folio client for browsers (and any runtime with fetch): Connect, gRPC-Web and REST. In Node
 * the package resolves to ./node.js instead, which adds gRPC.
 */
import type { DescService } from "@bufbuild/protobuf";
import {
  buildFolioClient,
  buildFolioTransport,
  type FolioClientOptions,
  type ServiceClientOptions,
} from "./client.js";
import type { ServiceClient } from "./client-types.js";
import type { FolioClient } from "./folio-calls.js";

export * from "./exports.js";

/** A client of `options.services` over Connect (default), gRPC-Web or REST; gRPC needs Node. */
export function createFolioClient<const S extends readonly DescService[]>(
  options: ServiceClientOptions<S>,
): ServiceClient<S[number]>;
/** A Folio client over Connect (default), gRPC-Web or REST; gRPC needs Node. */
export function createFolioClient(options: FolioClientOptions): FolioClient;
export function createFolioClient(
  options: FolioClientOptions & { readonly services?: readonly DescService[] },
) {
  return buildFolioClient(options, undefined);
}

/** A connect-es transport with the client's policy, for connect-query or createClient. */
export function createFolioTransport(options: Parameters<typeof buildFolioTransport>[0]) {
  return buildFolioTransport(options, undefined);
}
