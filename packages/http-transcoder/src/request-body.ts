import type { NodeServerRequest } from "./node-types.js";
import { restError, restErrorRules } from "./rest-errors.js";

const emptyBody = new Uint8Array(0);

/**
 * Reads the request body, up to `maxBytes`. A body announced larger by its `Content-Length` is
 * refused before a byte of it is read; one that grows larger while arriving is refused as soon as
 * it does, and the rest is not buffered (RFC 9110, section 15.5.14: 413 Content Too Large).
 *
 * @private
 */
export function readRequestBody(req: NodeServerRequest, maxBytes: number): Promise<Uint8Array> {
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
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        cleanUp();
        req.pause();
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
      reject(error);
    };
    const cleanUp = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
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
