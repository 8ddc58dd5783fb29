import type { JsonReadOptions, JsonWriteOptions } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import type { Compression } from "./connect-internals.js";

/** Options of `connectNodeAdapter` that decide which request messages are read, and how. */
export interface ConnectRequestOptions {
  readonly readMaxBytes: number;
  readonly acceptCompression: Compression[];
  readonly jsonOptions: Partial<JsonReadOptions & JsonWriteOptions>;
}

/**
 * How Connect, gRPC and gRPC-Web requests are read, to the rules REST already follows:
 *
 * - a request message larger than `maxBodyBytes` is refused with `resource_exhausted`; a
 *   compressed one is counted after decompression, and inflating stops at the limit (zlib's
 *   `maxOutputLength`), so a small gzip bomb never takes more memory than the limit;
 * - a compressed body that does not inflate (truncated, not gzip) is `invalid_argument`, not
 *   `internal`: the bytes are the client's;
 * - JSON with an unknown field, or that is not valid UTF-8, is refused (`invalid_argument`)
 *   instead of the field being dropped or the bytes stored as U+FFFD.
 */
export function connectRequestOptions(maxBodyBytes: number): ConnectRequestOptions {
  // connect-es reads the JSON text with this decoder when given one (createJsonSerialization);
  // the option's declared type does not list it.
  const jsonOptions: Partial<JsonReadOptions & JsonWriteOptions> & {
    textDecoder: { decode(input?: Uint8Array): string };
  } = {
    ignoreUnknownFields: false,
    textDecoder: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }),
  };
  return {
    readMaxBytes: maxBodyBytes,
    acceptCompression: [compressionGzip, compressionBrotli].map(clientFaultOnCorruptInput),
    jsonOptions,
  };
}

function clientFaultOnCorruptInput(compression: Compression): Compression {
  return {
    name: compression.name,
    compress: (bytes) => compression.compress(bytes),
    decompress: (bytes, readMaxBytes) =>
      compression.decompress(bytes, readMaxBytes).catch((error: unknown) => {
        if (error instanceof ConnectError && error.code === Code.Internal) {
          throw new ConnectError(
            `request body: ${error.rawMessage}`,
            Code.InvalidArgument,
            undefined,
            undefined,
            error,
          );
        }
        throw error;
      }),
  };
}
