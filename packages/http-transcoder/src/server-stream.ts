import { Code, ConnectError } from "@connectrpc/connect";
import { pipe, transformSplitEnvelope } from "@connectrpc/connect/protocol";
import { endStreamFlag, endStreamFromJson } from "@connectrpc/connect/protocol-connect";
import type { NodeServerResponse } from "./http-transcoder.js";

/**
 * How a server stream is written to a REST client: newline-delimited JSON (one
 * `{"result": message}` a line, as grpc-gateway writes them), Server-Sent Events (one `data:`
 * event a message), or, for a stream of `google.api.HttpBody`, the bytes one chunk after the
 * other.
 *
 * @private
 */
export type StreamFormat = "ndjson" | "sse" | "raw";

/** NDJSON, unless the client asks for `text/event-stream` (an EventSource does). @private */
export function negotiateStreamFormat(accept: string | string[] | undefined): "ndjson" | "sse" {
  const values = Array.isArray(accept) ? accept.join(",") : (accept ?? "");
  for (const entry of values.split(",")) {
    const [type, ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
    const refused = parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
    if (type === "text/event-stream" && !refused) return "sse";
  }
  return "ndjson";
}

/** The `Content-Type` of a stream of the format (a raw one's comes from its first message). @private */
export function streamContentType(format: "ndjson" | "sse"): string {
  return format === "sse" ? "text/event-stream" : "application/x-ndjson";
}

/** A message of the stream, written in the format: `body` is its JSON, or its raw bytes. @private */
export function streamMessage(format: StreamFormat, body: string | Uint8Array): string | Uint8Array {
  switch (format) {
    case "raw":
      return body;
    case "ndjson":
      return `{"result":${body as string}}\n`;
    case "sse":
      return `data: ${body as string}\n\n`;
  }
}

/**
 * The error that ends a stream after it started (the status is sent already): the error body
 * as the last NDJSON line, or an `error` event. A raw stream has no room for one.
 *
 * @private
 */
export function streamError(format: "ndjson" | "sse", errorBody: unknown): string {
  const json = JSON.stringify(errorBody);
  return format === "sse" ? `event: error\ndata: ${json}\n\n` : `${json}\n`;
}

/**
 * The messages of a Connect streaming response (https://connectrpc.com/docs/protocol#streaming-response),
 * in their binary form. Throws the error its end-stream message carries, with the trailers as the
 * error's metadata.
 *
 * @private
 */
export async function* connectStreamMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // The handler runs in this process: no limit but the envelope's own.
  for await (const envelope of pipe(body, transformSplitEnvelope(0xffffffff))) {
    if ((envelope.flags & endStreamFlag) === endStreamFlag) {
      const end = endStreamFromJson(envelope.data);
      if (end.error !== undefined) {
        end.metadata.forEach((value, key) => {
          end.error?.metadata.append(key, value);
        });
        throw end.error;
      }
      return;
    }
    yield envelope.data;
  }
  throw new ConnectError("the stream of the handler ended without an end-stream message", Code.Internal);
}

/** Writes a chunk, waiting for the client to take the previous ones when the buffer is full. @private */
export function writeChunk(res: NodeServerResponse, chunk: string | Uint8Array): Promise<void> {
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
