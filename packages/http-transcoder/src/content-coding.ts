import zlib from "node:zlib";
import { type ContentCoding, supportedContentCodings } from "./supported-codings.js";

// Also exported from here, where the modules that compress (send-body.ts, stream-sink.ts) import it.
export type { ContentCoding };

const zstdSupported = supportedContentCodings.includes("zstd");

/**
 * How responses are compressed. The levels were picked by measuring a 1000-row list page (350 KB
 * of JSON): see docs/benchmarks.md of the Folio repository.
 */
export interface CompressionOptions {
  /** Unary bodies smaller than this many bytes are sent as they are (streams have no size). Default 1024. */
  readonly threshold?: number;
  /** The codings offered, in the order preferred. Default {@link supportedContentCodings}. */
  readonly codings?: readonly ContentCoding[];
  /** The gzip level, 1 to 9. Default 6. */
  readonly gzipLevel?: number;
  /** The brotli quality, 0 to 11. Default 4. */
  readonly brotliQuality?: number;
  /** The zstd level. Default 1. */
  readonly zstdLevel?: number;
}

/** Compression settings with every default filled in. @private */
export interface Compression {
  readonly threshold: number;
  readonly codings: readonly ContentCoding[];
  compress(coding: ContentCoding, body: Uint8Array): Promise<Uint8Array>;
  /** A compressing stream of the coding at the same level, and the flush that ends a message. */
  createCompressor(coding: ContentCoding): { compressor: zlib.Gzip; flushKind: number };
}

/** The {@link Compression} of the `compression` option (`false`: none). @private */
export function createCompression(options: CompressionOptions | false | undefined): Compression | undefined {
  if (options === false) return undefined;
  const { constants } = zlib;
  // Each coding's level, the same for whole bodies and for streams.
  const gzip = { level: options?.gzipLevel ?? 6 };
  const brotli = { [constants.BROTLI_PARAM_QUALITY]: options?.brotliQuality ?? 4 };
  const zstd = {
    params: { [constants.ZSTD_c_compressionLevel]: options?.zstdLevel ?? 1 },
  } as zlib.ZlibOptions;
  const zstdOf = zlib as unknown as {
    createZstdCompress(options: zlib.ZlibOptions): zlib.Gzip;
    zstdCompress: typeof zlib.gzip;
  };
  return {
    threshold: options?.threshold ?? 1024,
    codings: (options?.codings ?? supportedContentCodings).filter((c) => supportedContentCodings.includes(c)),
    createCompressor(coding) {
      if (coding === "gzip") return { compressor: zlib.createGzip(gzip), flushKind: constants.Z_SYNC_FLUSH };
      if (coding === "br") {
        const compressor = zlib.createBrotliCompress({ params: brotli }) as unknown as zlib.Gzip;
        return { compressor, flushKind: constants.BROTLI_OPERATION_FLUSH };
      }
      return { compressor: zstdOf.createZstdCompress(zstd), flushKind: constants.ZSTD_e_flush };
    },
    compress(coding, body) {
      // On the thread pool: a 350 KB page takes milliseconds, which the event loop is spared.
      return new Promise((resolve, reject) => {
        const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result));
        if (coding === "gzip") zlib.gzip(body, gzip, done);
        else if (coding === "br") {
          const params = { ...brotli, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength };
          zlib.brotliCompress(body, { params }, done);
        } else zstdOf.zstdCompress(body, zstd, done);
      });
    },
  };
}

/**
 * The coding to answer with for an `Accept-Encoding` (RFC 9110, section 12.5.3): the acceptable
 * one with the highest weight, ties broken by the server's order; none (identity) when nothing
 * offered is accepted. `*` stands for every coding not named.
 *
 * @private
 */
export function negotiateContentCoding(
  accept: string | string[] | undefined,
  offered: readonly ContentCoding[],
): ContentCoding | undefined {
  if (accept === undefined || offered.length === 0) return undefined;
  const weights = new Map<string, number>();
  for (const item of (Array.isArray(accept) ? accept.join(",") : accept).split(",")) {
    const [name = "", ...parameters] = item.split(";").map((part) => part.trim().toLowerCase());
    if (name === "") continue;
    const q = parameters.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name === "x-gzip" ? "gzip" : name, Number.isFinite(weight) ? weight : 0);
  }
  let best: ContentCoding | undefined;
  let bestWeight = 0;
  for (const coding of offered) {
    const weight = weights.get(coding) ?? weights.get("*") ?? 0;
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  return best;
}

/** A decompressing stream for a request's `Content-Encoding`, or undefined for one not supported. @private */
export function createDecompressor(coding: string): zlib.Gunzip | zlib.BrotliDecompress | undefined {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "br":
      return zlib.createBrotliDecompress();
    case "zstd":
      return zstdSupported
        ? (zlib as unknown as { createZstdDecompress(): zlib.Gunzip }).createZstdDecompress()
        : undefined;
    default:
      return undefined;
  }
}
