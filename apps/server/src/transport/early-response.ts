import type http from "node:http";

/**
 * Marks an HTTP/1.1 response `Connection: close` when it starts before its request has fully
 * arrived (a body refused as too large, say). The handler then stops reading and Node closes the
 * connection once the response is sent, because the unread rest of the body stands before any
 * next request; announcing keep-alive would have the client send its next request into a
 * connection about to close (RFC 9112, section 9.6).
 */
export function closeAfterEarlyResponse(req: http.IncomingMessage, res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    if (!req.complete && !this.headersSent) this.setHeader("connection", "close");
    return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}
