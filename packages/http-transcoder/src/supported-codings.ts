import zlib from "node:zlib";

// The one import of the rules beyond descriptors: the codings the transcoder reads and writes are
// those of the Node it runs on, and a description of the API must name the same ones.

/** A content coding the transcoder reads and writes (RFC 9110, section 8.4.1). */
export type ContentCoding = "br" | "gzip" | "zstd";

// zstd arrived in Node 23.8 / 22.15; older versions have neither function.
const zstdSupported = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === "function";

/**
 * The content codings of this Node version, in the order a response prefers them when a client
 * accepts several with the same weight: `br`, then `zstd` (where Node has it), then `gzip`.
 */
export const supportedContentCodings: readonly ContentCoding[] = zstdSupported
  ? ["br", "zstd", "gzip"]
  : ["br", "gzip"];
