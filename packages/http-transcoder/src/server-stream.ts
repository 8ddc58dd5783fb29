import type { Message } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { type AnswerReport, reportError } from "./answer-report.js";
import type { CompiledRoute } from "./compile-routes.js";
import { type Compression, negotiateContentCoding } from "./content-coding.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";
import { asConnectError } from "./rest-errors.js";
import { setResponseHeaders } from "./rest-headers.js";
import { appendVary } from "./send-body.js";
import { compressingSink, plainSink, type StreamSink } from "./stream-sink.js";

/** What a server-streaming call answered: its messages as they come, and the headers it set. @private */
export interface ServerStreamAnswer {
  readonly messages: AsyncIterator<Message>;
  /** The headers the call set, read once a message or an error has come. */
  header(): Headers | undefined;
}

/**
 * Writes the messages of a server stream as they come. The status and headers wait for the first
 * message, so that an error before it is an ordinary error response (thrown, with the headers set
 * so far); one after it ends the stream in the stream's own format, with `errorBody`. NDJSON and
 * SSE are compressed in the coding the client accepts (whatever their size: a stream's is not
 * known), flushed after each message so that none waits for the next; raw chunks (an HttpBody's
 * bytes, often compressed already) are sent as they are. Reports the code of a stream that began:
 * `ok`, the error that ended it (`errorBody` reports its own), or `canceled` when the client left.
 *
 * @private
 */
export async function writeServerStream(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  stream: ServerStreamAnswer,
  errorBody: (error: ConnectError) => unknown,
  compression: Compression | undefined,
  report?: AnswerReport,
): Promise<void> {
  const { messages } = stream;
  let next: IteratorResult<Message>;
  try {
    next = await messages.next();
  } catch (error) {
    setResponseHeaders(res, stream.header());
    throw error;
  }
  const first = next.done ? undefined : entry.writeResponse(next.value);
  const format: StreamFormat = entry.rawResponse ? "raw" : negotiateStreamFormat(req.headers.accept);
  setResponseHeaders(res, stream.header());
  res.statusCode = entry.successStatus;
  if (format === "raw") {
    res.setHeader("content-type", first?.contentType ?? "application/octet-stream");
  } else {
    res.setHeader("content-type", streamContentType(format));
    res.setHeader("cache-control", "no-cache");
  }
  const sink = format === "raw" ? plainSink(res) : streamSink(req, res, compression);
  try {
    let chunk = first;
    while (chunk !== undefined && !res.destroyed) {
      await sink.write(streamMessage(format, chunk.body));
      next = await messages.next();
      chunk = next.done ? undefined : entry.writeResponse(next.value);
    }
  } catch (thrown) {
    if (format === "raw" || res.destroyed) {
      // Bytes have no room for an error: the response is cut off, which the client sees.
      reportError(report, asConnectError(thrown));
      res.destroy();
      return;
    }
    sink.end(streamError(format, errorBody(asConnectError(thrown))));
    return;
  }
  if (!next.done) {
    // The client went away: end the call (its signal has aborted) rather than leave it suspended.
    messages.return?.().catch(() => {});
  }
  sink.end();
  report?.answered(next.done ? "ok" : "canceled");
}

/** The response as it is, or compressed in the coding the client prefers. */
function streamSink(req: NodeRequest, res: NodeResponse, compression: Compression | undefined): StreamSink {
  if (compression === undefined) return plainSink(res);
  appendVary(res, "accept-encoding");
  const coding = negotiateContentCoding(req.headers["accept-encoding"], compression.codings);
  if (coding === undefined) return plainSink(res);
  res.setHeader("content-encoding", coding);
  return compressingSink(res, compression, coding);
}

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
