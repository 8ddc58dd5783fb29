import type { JsonWriteOptions } from "@bufbuild/protobuf";
import type { ConnectError, HandlerContext } from "@connectrpc/connect";
import {
  connectCodeToHttpStatus,
  contentTypeUnaryJson,
  errorToJsonBytes,
  headerUnaryTrailerPrefix,
  mergeNonProtocolHeaders,
} from "../connect-internals.js";
import type { UnaryWire } from "../unary-wire.js";
import { nodeHeaders, type UnaryAnswer } from "../write-unary-answer.js";

const TRAILER_PREFIX = headerUnaryTrailerPrefix.toLowerCase();

/**
 * The answer of a unary Connect call, as connect-es's Connect handler gives it: 200 and the
 * message, or the error's HTTP status and its JSON (with the error's metadata as headers); the
 * call's response trailers as `trailer-` headers, the body compressed from connect-es's threshold
 * for a client that accepts a coding, and its `content-length`.
 */
export async function connectAnswer(
  context: HandlerContext,
  wire: UnaryWire,
  outcome: Uint8Array | ConnectError,
  compressMinBytes: number,
  jsonOptions: Partial<JsonWriteOptions>,
): Promise<UnaryAnswer> {
  let status = 200;
  let body: Uint8Array;
  let contentType = wire.contentType;
  if (outcome instanceof Uint8Array) {
    body = outcome;
  } else {
    status = connectCodeToHttpStatus(outcome.code);
    contentType = contentTypeUnaryJson;
    if (!outcome.isWireError) mergeNonProtocolHeaders(context.responseHeader, outcome.metadata);
    body = errorToJsonBytes(outcome, jsonOptions);
  }
  const header = nodeHeaders(context.responseHeader);
  header["content-type"] = contentType;
  if (wire.responseCompression !== null && body.byteLength >= compressMinBytes) {
    body = await wire.responseCompression.compress(body);
    header["content-encoding"] = wire.responseCompression.name;
  }
  context.responseTrailer.forEach((value, key) => {
    const name = TRAILER_PREFIX + key;
    const existing = header[name];
    if (existing === undefined) header[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else header[name] = [existing, value];
  });
  header["content-length"] = String(body.byteLength);
  return { status, header, body };
}
