import type { BinaryReadOptions, JsonReadOptions, JsonWriteOptions } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import type { Compression } from "./connect-internals.js";

/** Options of `connectNodeAdapter` that decide which request messages are read, and how. */
export interface ConnectRequestOptions {
  readonly readMaxBytes: number;
  readonly acceptCompression: Compression[];
  readonly jsonOptions: Partial<JsonReadOptions & JsonWriteOptions>;
  readonly binaryOptions: Partial<BinaryReadOptions>;
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
 *   instead of the field being dropped or the bytes stored as U+FFFD;
 * - binary with fields the schema does not have (a newer client's) is read, and those fields are
 *   dropped, not kept on the message: no service reads them, and kept, each costs an object and
 *   a view of the body (164 bytes of heap for an empty group of 4 bytes: 41 MiB for a 1 MiB body),
 *   which made decoding such a body superlinear in the garbage collector's work.
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
    binaryOptions: { readUnknownFields: false },
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
