import type http from "node:http";
import http2 from "node:http2";
import type net from "node:net";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./connection-limits.js";

/** How long, and how much, a connection is read and discarded after an early answer. */
export type LingeringClose = Pick<ConnectionLimits, "lingerTimeMs" | "lingerIdleMs" | "lingerMaxBytes">;

/**
 * Marks an HTTP/1.1 response `Connection: close` when it starts before its request's body has
 * fully arrived (a body refused as too large, say), and closes the connection lingeringly once the
 * response is sent. Announcing keep-alive would have the client send its next request into a
 * connection about to close (RFC 9112, section 9.6). Closing at once would reset the connection
 * while the client still sends, and a client that is still sending (Node's `fetch`) then loses the
 * answer (RFC 9112, section 9.6: a server "SHOULD NOT" fully close before the client acknowledges
 * it): the server half-closes, reads and discards what still comes, within `bounds`, then closes,
 * as nginx's `lingering_close` does.
 */
export function closeAfterEarlyResponse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  bounds: LingeringClose = DEFAULT_CONNECTION_LIMITS,
): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    if (!req.complete && announcesBody(req) && !this.headersSent) {
      this.setHeader("connection", "close");
      const socket = this.socket as net.Socket | null;
      if (socket !== null) lingerOnClose(socket, req, bounds);
    }
    return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}

/**
 * Whether the request has a body to wait for (RFC 9112, section 6.3): chunked, or a Content-Length
 * other than 0. Node marks a request without one complete only once its empty body has been read,
 * so `req.complete` alone would take a preflight or a probe answered at once for an early answer.
 */
function announcesBody(req: http.IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = req.headers["content-length"];
  return length !== undefined && Number(length) !== 0;
}

/**
 * Replaces the close Node does after a `Connection: close` response (`socket.destroySoon()`, a
 * full close) with a lingering one: the write side ends (FIN, after the response), the rest of
 * the request is read through the parser and dropped, and the socket is destroyed when the
 * client has sent everything, after `lingerIdleMs` without bytes, after `lingerTimeMs`, or after
 * `lingerMaxBytes`, whichever comes first.
 */
function lingerOnClose(socket: net.Socket, req: http.IncomingMessage, bounds: LingeringClose): void {
  const lingering = socket as net.Socket & { destroySoon?: () => void };
  lingering.destroySoon = () => {
    let discarded = 0;
    let idle: NodeJS.Timeout | undefined;
    const cut = () => {
      clearTimeout(idle);
      clearTimeout(total);
      socket.destroy();
    };
    const total = setTimeout(cut, bounds.lingerTimeMs);
    const rearm = () => {
      clearTimeout(idle);
      idle = setTimeout(cut, bounds.lingerIdleMs);
    };
    rearm();
    socket.once("close", cut);
    // Counted on the socket: Node has dumped the request once its response finished, and a dumped
    // request's body bytes are dropped by the parser, never emitted as the request's data.
    socket.on("data", (chunk: Buffer) => {
      discarded += chunk.byteLength;
      if (discarded > bounds.lingerMaxBytes) cut();
      else rearm();
    });
    req.once("end", cut);
    req.once("error", cut);
    req.resume();
    socket.end();
  };
}

/**
 * On HTTP/2, ends the stream of a response that finished before its request arrived with
 * RST_STREAM `NO_ERROR`, telling the client to stop sending without failing the answer it has
 * (RFC 9113, section 8.1).
 */
export function resetAfterEarlyResponse(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): void {
  const stream = res.stream;
  // The stream's own "finish" (the response's comes only when the stream closes); the RST_STREAM
  // must follow the frame with END_STREAM, which nghttp2 sends on a later turn of the loop.
  stream.once("finish", () => {
    if (req.complete) return;
    let turns = 0;
    const resetWhenSent = () => {
      if (stream.destroyed || stream.closed || req.complete) return;
      if (stream.state.localClose === 1 || ++turns > 100) stream.close(http2.constants.NGHTTP2_NO_ERROR);
      else setImmediate(resetWhenSent);
    };
    setImmediate(resetWhenSent);
  });
}
