import type { NodeRequest } from "@folio/http-transcoder";

/** A request body as read: whole (`complete`), or what came before the reading stopped. */
export interface BodyRead {
  readonly chunks: Buffer[];
  readonly size: number;
  /** The body ended within the limit; false: it is larger, or the request failed first. */
  readonly complete: boolean;
}

/**
 * Reads a request body straight off Node's request, up to `limit` bytes. A larger body, or a
 * request that fails or closes before its end, is not refused here: reading stops, and the bytes
 * read so far go to connect-es's handler with the rest of the stream ({@link replayBody}), which
 * answers it as it always has. Why not connect-node's reader: it is an async generator over the
 * stream's async iterator, two promises and an iterator result per chunk, for a body that is
 * mostly one chunk.
 */
export function readBody(req: NodeRequest, limit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (complete: boolean) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onIncomplete);
      req.off("close", onIncomplete);
      if (!complete) req.pause();
      resolve({ chunks, size, complete });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > limit) stop(false);
    };
    const onEnd = () => stop(true);
    const onIncomplete = () => stop(false);
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onIncomplete);
    req.once("close", onIncomplete);
  });
}

/** The body read, in one array. */
export function bodyBytes(read: BodyRead): Buffer {
  return read.chunks.length === 1 ? (read.chunks[0] as Buffer) : Buffer.concat(read.chunks, read.size);
}

/** The request body for connect-es's handler: the chunks read already, then the rest of the stream. */
export async function* replayBody(read: BodyRead, req: NodeRequest): AsyncIterable<Uint8Array> {
  yield* read.chunks;
  if (!read.complete) for await (const chunk of req) yield chunk as Uint8Array;
}

/** gRPC's and gRPC-Web's length-prefixed message: a flags byte, a 4-byte length, the message. */
export interface Envelope {
  readonly flags: number;
  readonly data: Uint8Array;
}

/**
 * The one message of a unary call's body, when the body is exactly one envelope with no flag but
 * "compressed"; undefined for anything else (none, two, a truncated one, a gRPC-Web trailer
 * frame), which connect-es answers with its own protocol errors.
 */
export function singleEnvelope(body: Buffer): Envelope | undefined {
  if (body.byteLength < 5) return undefined;
  const flags = body[0] as number;
  if ((flags & ~1) !== 0 || body.readUInt32BE(1) !== body.byteLength - 5) return undefined;
  return { flags, data: body.subarray(5) };
}
