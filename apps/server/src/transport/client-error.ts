import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { HttpErrorEnvelope } from "@folio/http-transcoder";

/** What Node's HTTP/1.1 parser refused, as the status and Connect code of the answer. */
function classify(code: string | undefined): { status: number; code: string; message: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "resource_exhausted", message: "request headers too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, code: "resource_exhausted", message: "chunk extensions too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        code: "deadline_exceeded",
        message: "the request did not arrive in time",
      };
    default:
      return { status: 400, code: "invalid_argument", message: "malformed HTTP request" };
  }
}

/**
 * The raw HTTP/1.1 response to a request Node's parser refused (a NUL in a header, headers too
 * large, a request that did not arrive in time): the API's error envelope instead of Node's bare
 * status line. The connection is closed after it, as the parser cannot go on.
 */
export function clientErrorResponse(error: Error & { code?: string; reason?: string }): string {
  const { status, code, message } = classify(error.code);
  const requestId = randomUUID();
  // llhttp's reason ("Invalid header value char") names the fault without echoing the request.
  const detail = status === 400 && typeof error.reason === "string" ? `: ${error.reason}` : "";
  const envelope: HttpErrorEnvelope = {
    error: { code, message: `${message}${detail}`, requestId, details: [] },
  };
  const body = JSON.stringify(envelope);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * Answers a `clientError` of an `http.Server` with {@link clientErrorResponse}, unless the
 * connection is gone or a response has already started on it (`responseStarted`): then a
 * written status line would corrupt the stream, and the socket is destroyed instead.
 */
export function answerClientError(
  error: Error & { code?: string; reason?: string },
  socket: Duplex,
  responseStarted: boolean,
): void {
  if (error.code === "ECONNRESET" || !socket.writable || responseStarted) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(error));
}
