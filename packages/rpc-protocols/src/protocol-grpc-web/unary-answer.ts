import type { ConnectError, HandlerContext } from "@connectrpc/connect";
import {
  encodeEnvelope,
  grpcStatusOk,
  setGrpcWebTrailerStatus,
  trailerFlag,
  trailerSerialize,
} from "../connect-internals.js";
import { envelope, grpcHeader } from "../protocol-grpc/unary-answer.js";
import type { UnaryWire } from "../unary-wire.js";
import type { UnaryAnswer } from "../write-unary-answer.js";

/**
 * The trailer frame of a call that succeeded and set no trailers, the common case, built once
 * (connect-es serializes it for every call, a `TextEncoder` and all). It is far below the
 * compression threshold.
 */
const TRAILER_OK = encodeEnvelope(
  trailerFlag,
  trailerSerialize(new Headers({ "grpc-status": grpcStatusOk })),
);

/**
 * The answer of a unary gRPC-Web call, as connect-es's gRPC-Web handler gives it: gRPC's headers,
 * and a body of the message's envelope (none on failure) and the trailer frame (flag 0x80): the
 * status and the call's response trailers, as HTTP/1.1 header lines.
 */
export async function grpcWebAnswer(
  context: HandlerContext,
  wire: UnaryWire,
  outcome: Uint8Array | ConnectError,
  compressMinBytes: number,
): Promise<UnaryAnswer> {
  const header = grpcHeader(context, wire);
  const trailer = context.responseTrailer;
  let trailerFrame: Uint8Array;
  if (outcome instanceof Uint8Array && isEmpty(trailer)) {
    trailerFrame = TRAILER_OK;
  } else {
    if (outcome instanceof Uint8Array) trailer.set("grpc-status", grpcStatusOk);
    else setGrpcWebTrailerStatus(trailer, outcome);
    trailerFrame = await envelope(trailerFlag, trailerSerialize(trailer), wire, compressMinBytes);
  }
  if (!(outcome instanceof Uint8Array)) return { status: 200, header, body: trailerFrame };
  const message = await envelope(0, outcome, wire, compressMinBytes);
  return { status: 200, header, body: Buffer.concat([message, trailerFrame]) };
}

function isEmpty(headers: Headers): boolean {
  let empty = true;
  headers.forEach(() => {
    empty = false;
  });
  return empty;
}
