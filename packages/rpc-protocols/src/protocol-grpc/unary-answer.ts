import type { ConnectError, HandlerContext } from "@connectrpc/connect";
import {
  encodeEnvelope,
  envelopeCompress,
  grpcStatusOk,
  setGrpcTrailerStatus,
} from "../connect-internals.js";
import type { UnaryWire } from "../unary-wire.js";
import { EMPTY, type NodeHeaders, nodeHeaders, type UnaryAnswer } from "../write-unary-answer.js";

/**
 * The answer of a unary gRPC call: status 200, the response headers (content type,
 * `grpc-encoding` when the client accepts a coding), the message in its envelope (compressed from
 * connect-es's threshold), and the status in the trailers with the call's response trailers. A
 * failure is a Trailers-Only answer, as grpc-js and grpc-go send one: nothing was sent before
 * it, so its status, headers and trailers go in one HEADERS frame (connect-es's handler sends
 * headers, then trailers; clients read both).
 */
export async function grpcAnswer(
  context: HandlerContext,
  wire: UnaryWire,
  outcome: Uint8Array | ConnectError,
  compressMinBytes: number,
): Promise<UnaryAnswer> {
  const header = grpcHeader(context, wire);
  if (!(outcome instanceof Uint8Array)) {
    setGrpcTrailerStatus(context.responseTrailer, outcome);
    for (const [name, value] of Object.entries(nodeHeaders(context.responseTrailer))) {
      const before = header[name];
      header[name] = before === undefined ? value : [before, value].flat();
    }
    return { status: 200, header, body: EMPTY, trailersOnly: true };
  }
  const trailer = nodeHeaders(context.responseTrailer);
  trailer["grpc-status"] = grpcStatusOk;
  const body = await envelope(0, outcome, wire, compressMinBytes);
  return { status: 200, header, body, trailer };
}

/** The response headers of gRPC and gRPC-Web: the call's, its content type and coding. */
export function grpcHeader(context: HandlerContext, wire: UnaryWire): NodeHeaders {
  const header = nodeHeaders(context.responseHeader);
  header["content-type"] = wire.contentType;
  if (wire.responseCompression !== null) header["grpc-encoding"] = wire.responseCompression.name;
  return header;
}

/** A message in its envelope, compressed as connect-es does (the coding negotiated, from the threshold). */
export async function envelope(
  flags: number,
  data: Uint8Array,
  wire: UnaryWire,
  compressMinBytes: number,
): Promise<Uint8Array> {
  if (wire.responseCompression === null || data.byteLength < compressMinBytes) {
    return encodeEnvelope(flags, data);
  }
  const compressed = await envelopeCompress({ flags, data }, wire.responseCompression, compressMinBytes);
  return encodeEnvelope(compressed.flags, compressed.data);
}
