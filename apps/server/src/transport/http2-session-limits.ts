import http2 from "node:http2";

/** The time limits applied to each HTTP/2 connection (see `ConnectionLimits`). */
export interface Http2SessionTimeouts {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/**
 * Bounds how long an HTTP/2 connection may hold server resources without doing work:
 *
 * - a new connection must open its first stream within `headersTimeoutMs`, and a connection
 *   without open streams is closed after `idleTimeoutMs` (a GOAWAY; clients reconnect). Node's
 *   own session timeout counts any frame as activity, PINGs included, so a client could keep an
 *   idle connection forever with it;
 * - a stream must deliver its whole request within `requestTimeoutMs` of opening, or it is
 *   cancelled (RST_STREAM CANCEL), like HTTP/1.1's `requestTimeout`.
 */
export function limitHttp2Session(session: http2.ServerHttp2Session, timeouts: Http2SessionTimeouts): void {
  let openStreams = 0;
  let idle: NodeJS.Timeout | undefined;
  const closeWhenIdle = (ms: number) => {
    idle = setTimeout(() => {
      if (!session.closed && !session.destroyed) session.close();
    }, ms);
    idle.unref();
  };
  closeWhenIdle(timeouts.headersTimeoutMs);
  session.once("close", () => clearTimeout(idle));

  session.on("stream", (stream) => {
    openStreams += 1;
    clearTimeout(idle);
    const deadline = setTimeout(() => {
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    }, timeouts.requestTimeoutMs);
    deadline.unref();
    // The request has fully arrived (its body read by the handler), or the stream is over.
    stream.once("end", () => clearTimeout(deadline));
    stream.once("close", () => {
      clearTimeout(deadline);
      openStreams -= 1;
      if (openStreams === 0 && !session.closed) closeWhenIdle(timeouts.idleTimeoutMs);
    });
  });
}
