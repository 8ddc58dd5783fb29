import type { Readable } from "node:stream";
import { createDecompressor } from "./content-coding.js";
import type { NodeRequest } from "./node-types.js";
import { restErrorRules } from "./rest-error-rules.js";
import { restError } from "./rest-errors.js";
import { supportedContentCodings } from "./supported-codings.js";

const emptyBody = new Uint8Array(0);

/**
 * Reads the request body, up to `maxBytes`, decoded from its `Content-Encoding` (gzip, br, and
 * zstd where Node has it). A body announced larger by its `Content-Length` is refused before a
 * byte of it is read; one that grows larger while arriving, or while it is decompressed, is
 * refused as soon as it does, and the rest is neither buffered nor decompressed (RFC 9110,
 * section 15.5.14: 413 Content Too Large), so that a compression bomb costs at most `maxBytes`.
 * An unsupported coding is 415 (RFC 9110, section 15.5.16).
 *
 * @private
 */
export function readRequestBody(req: NodeRequest, maxBytes: number): Promise<Uint8Array> {
  const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
  let decompressor: Decompressor | undefined;
  if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
    decompressor = createDecompressor(encoding);
    if (decompressor === undefined) {
      return Promise.reject(
        restError(
          restErrorRules.unsupportedMediaType,
          `unsupported Content-Encoding "${encoding}"; send ${supportedContentCodings.join(", ")} or none`,
        ),
      );
    }
  }
  const length = req.headers["content-length"];
  if (length !== undefined) {
    const announced = Number(length);
    if (announced > maxBytes) {
      return Promise.reject(tooLarge(maxBytes));
    }
    if (announced === 0) {
      return Promise.resolve(emptyBody);
    }
  } else if (req.httpVersionMajor < 2 && req.headers["transfer-encoding"] === undefined) {
    // HTTP/1.1 without Content-Length or Transfer-Encoding: no body (RFC 9112, section 6.3).
    return Promise.resolve(emptyBody);
  }
  return decompressor === undefined
    ? collectBody(req, maxBytes, () => {})
    : readCompressedBody(req, decompressor, encoding as string, maxBytes);
}

type Decompressor = NonNullable<ReturnType<typeof createDecompressor>>;

/** Collects a stream's chunks up to `maxBytes`; `stop` is called when it refuses the rest. */
function collectBody(source: Readable, maxBytes: number, stop: () => void): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        cleanUp();
        source.pause();
        stop();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanUp();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanUp();
      stop();
      reject(error);
    };
    const cleanUp = () => {
      source.off("data", onData);
      source.off("end", onEnd);
      source.off("error", onError);
    };
    source.on("data", onData);
    source.on("end", onEnd);
    source.on("error", onError);
  });
}

/** Feeds the body through the decompressor, the compressed and the decoded bytes both bounded. */
function readCompressedBody(
  req: NodeRequest,
  decompressor: Decompressor,
  encoding: string,
  maxBytes: number,
): Promise<Uint8Array> {
  let compressed = 0;
  let failed: Error | undefined;
  const stop = () => {
    req.off("data", onData);
    req.off("end", onEnd);
    req.pause();
    decompressor.destroy();
  };
  const onData = (chunk: Buffer) => {
    compressed += chunk.byteLength;
    if (compressed > maxBytes) {
      failed = tooLarge(maxBytes);
      stop();
      decompressor.emit("error", failed);
      return;
    }
    // Waits for the decompressor, so that the compressed bytes do not pile up in front of it.
    if (!decompressor.write(chunk)) {
      req.pause();
      decompressor.once("drain", () => req.resume());
    }
  };
  const onEnd = () => decompressor.end();
  req.on("data", onData);
  req.on("end", onEnd);
  return collectBody(decompressor, maxBytes, stop).catch((error: unknown) => {
    if (failed !== undefined || (error instanceof Error && error.name === "ConnectError"))
      throw failed ?? error;
    throw restError(restErrorRules.invalidRequest, `request body: not valid ${encoding} data`);
  });
}

function tooLarge(maxBytes: number) {
  return restError(restErrorRules.contentTooLarge, `request body larger than ${maxBytes} bytes`);
}

/**
 * Whether a `Content-Type` is JSON: `application/json`, optionally with `charset=utf-8` (RFC 8259,
 * section 8.1: JSON exchanged between systems is UTF-8; no other charset is accepted).
 *
 * @private
 */
export function isJsonContentType(contentType: string): boolean {
  const semicolon = contentType.indexOf(";");
  const type = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (type !== "application/json") {
    return false;
  }
  if (semicolon < 0) {
    return true;
  }
  for (const parameter of contentType.slice(semicolon + 1).split(";")) {
    const [name = "", value = ""] = parameter.split("=", 2).map((s) => s.trim().toLowerCase());
    if (name === "" && value === "") {
      continue;
    }
    if (name !== "charset" || value.replace(/^"(.*)"$/, "$1") !== "utf-8") {
      return false;
    }
  }
  return true;
}
