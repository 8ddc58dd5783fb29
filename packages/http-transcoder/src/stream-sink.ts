import type zlib from "node:zlib";
import type { Compression, ContentCoding } from "./content-coding.js";
import type { NodeResponse } from "./node-types.js";

/** Where the messages of a server stream go: the response as it is, or through a compressor. @private */
export interface StreamSink {
  /** Writes a message, resolving once the client took it (or went away): never held back. */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Ends the stream, after a last chunk if given. */
  end(chunk?: string): void;
}

/** Writes to the response as it is. @private */
export function plainSink(res: NodeResponse): StreamSink {
  return {
    write: (chunk) => writeChunk(res, chunk),
    end: (chunk) => {
      if (chunk === undefined) res.end();
      else res.end(chunk);
    },
  };
}

/**
 * Writes through a compressor of `coding`, flushed after each message (`Z_SYNC_FLUSH`,
 * `BROTLI_OPERATION_FLUSH`, `ZSTD_e_flush`): what the client has received always decodes to whole
 * messages, so a compressed event is never held back waiting for the next. The flush costs a few
 * bytes a message; the stream's repetition (the same keys in every message) is still shared
 * across messages, since the compressor's window is kept.
 *
 * @private
 */
export function compressingSink(
  res: NodeResponse,
  compression: Compression,
  coding: ContentCoding,
): StreamSink {
  const { compressor, flushKind } = compression.createCompressor(coding);
  const response = res as NodeResponse & {
    write(chunk: Uint8Array): boolean;
  };
  compressor.on("data", (chunk: Buffer) => {
    if (!response.write(chunk)) compressor.pause();
  });
  res.on("drain", () => compressor.resume());
  compressor.once("end", () => res.end());
  // A compressor cannot fail on its own input; should it, the client sees the stream cut off.
  compressor.once("error", () => res.destroy());
  res.once("close", () => compressor.destroy());
  return {
    write: (chunk) =>
      new Promise((resolve) => {
        if (res.destroyed || compressor.destroyed) {
          resolve();
          return;
        }
        const done = () => {
          res.off("close", done);
          resolve();
        };
        res.once("close", done);
        compressor.write(chunk);
        // Called once the flushed bytes are handed on: with the response's buffer full, only once
        // the client has taken them (the compressor is paused meanwhile).
        (compressor as zlib.Gzip).flush(flushKind, done);
      }),
    end: (chunk) => {
      if (compressor.destroyed) return;
      if (chunk === undefined) compressor.end();
      else compressor.end(chunk);
    },
  };
}

/** Writes a chunk, waiting for the client to take the previous ones when the buffer is full. @private */
export function writeChunk(res: NodeResponse, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if ((res as { write(chunk: string | Uint8Array): boolean }).write(chunk)) {
      resolve();
      return;
    }
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
