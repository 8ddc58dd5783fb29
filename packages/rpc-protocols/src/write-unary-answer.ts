import type http from "node:http";
import type http2 from "node:http2";
import { universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { NodeResponse } from "@folio/http-transcoder";
import type { UniversalServerResponse } from "./connect-internals.js";

/**
 * Writes the answer of a unary call (Connect, gRPC or gRPC-Web) in one go: status, headers, the
 * whole body and the trailers, handed to Node together.
 *
 * Why not connect-node's `universalResponseToNodeResponse`, which streams: it writes the headers,
 * then each body chunk waiting for its write callback, then ends. Node sends what a response
 * queued in one tick in one socket write, so a unary answer took two or three (HTTP/2: HEADERS and
 * DATA, then the trailing HEADERS; HTTP/1.1: headers and a chunk, then the last chunk), and socket
 * writes were the largest single cost in a profile of small calls (`writev`, 10-23% of the CPU).
 * A unary call's body is one message (gRPC-Web: and its trailer frame), complete before it is
 * written, so nothing waits for it. Streams keep connect-node's writer.
 */
export async function writeUnaryResponse(
  response: UniversalServerResponse,
  res: NodeResponse,
): Promise<void> {
  const http1 = !("stream" in res);
  // HTTP/1.1 trailers need a chunked body (no protocol Folio serves has them there): as before.
  if (http1 && response.trailer !== undefined) return universalResponseToNodeResponse(response, res);
  const body = await readBody(response.body);
  writeUnaryAnswer(res, {
    status: response.status,
    header: nodeHeaders(response.header),
    body,
    trailer: response.trailer === undefined ? undefined : nodeHeaders(response.trailer),
  });
}

/** Node's form of response headers: a name given twice has both values. */
export type NodeHeaders = Record<string, string | string[]>;

/** A unary call's whole answer, ready for the wire. */
export interface UnaryAnswer {
  readonly status: number;
  readonly header: NodeHeaders;
  readonly body: Uint8Array;
  /** HTTP/2 trailers (gRPC); HTTP/1.1 never has them here. */
  readonly trailer?: NodeHeaders | undefined;
  /**
   * gRPC's Trailers-Only answer (HTTP/2): no body, and the status with every header in one
   * HEADERS frame that ends the stream.
   */
  readonly trailersOnly?: boolean;
}

/** Writes a unary answer: status, headers, body and trailers, handed to Node in one go. */
export function writeUnaryAnswer(res: NodeResponse, answer: UnaryAnswer): void {
  const { header, body } = answer;
  // A 304 (a Connect GET's tag matched) has no content: no length of its own (RFC 9110, section
  // 8.6), and nothing to write, which HTTP/2 would refuse.
  const noContent = answer.status === 304;
  if (!("stream" in res)) {
    if (header["content-length"] === undefined && !noContent) {
      header["content-length"] = String(body.byteLength);
    }
    (res as http.ServerResponse).writeHead(answer.status, header);
  } else if (answer.trailersOnly === true) {
    // Node's compatibility API sends its end apart from the headers (an empty DATA frame, or
    // trailers), so the one frame is the stream's own; end() then only marks the response ended.
    const response = res as http2.Http2ServerResponse;
    response.stream.respond(
      { ...response.getHeaders(), ...header, ":status": answer.status },
      { endStream: true },
    );
    response.end();
    return;
  } else {
    (res as http2.Http2ServerResponse).writeHead(answer.status, header);
    if (answer.trailer !== undefined) res.addTrailers(answer.trailer);
  }
  if (noContent) res.end();
  else res.end(body);
}

/** An empty body. */
export const EMPTY = new Uint8Array(0);

/** The body's chunks as one array (a unary answer has one or two). */
async function readBody(body: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  if (body === undefined) return EMPTY;
  const it = body[Symbol.asyncIterator]();
  try {
    const first = await it.next();
    if (first.done === true) return EMPTY;
    let chunk = await it.next();
    if (chunk.done === true) return first.value;
    const chunks = [first.value];
    for (; chunk.done !== true; chunk = await it.next()) chunks.push(chunk.value);
    return Buffer.concat(chunks);
  } finally {
    // As connect-node does: lets the handler's pipeline end its call (and abort its signal).
    it.return?.().catch(() => {});
  }
}

/** Node's form of fetch `Headers`; a name given twice keeps both values, as connect-node's does. */
export function nodeHeaders(headers: Headers | undefined): NodeHeaders {
  const out: NodeHeaders = Object.create(null) as NodeHeaders;
  headers?.forEach((value, key) => {
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[key] = [existing, value];
  });
  return out;
}
