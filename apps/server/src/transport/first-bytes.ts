import type net from "node:net";

/** First bytes of every HTTP/2 connection (RFC 9113, section 3.4); no HTTP/1 method starts so. */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0");

/**
 * Reads a connection's first bytes until they tell HTTP/2's preface from an HTTP/1.1 request,
 * puts them back, and hands the paused socket on. A connection that does not tell within
 * `timeoutMs` (one that sends nothing at all, say) is closed.
 */
export function routeByFirstBytes(
  socket: net.Socket,
  timeoutMs: number,
  route: (isHttp2: boolean) => void,
): void {
  let first: Buffer = Buffer.alloc(0);
  const onTimeout = () => socket.destroy();
  const onData = (chunk: Buffer) => {
    first = first.length === 0 ? chunk : Buffer.concat([first, chunk]);
    const length = Math.min(first.length, HTTP2_PREFACE.length);
    const isPrefix = first.subarray(0, length).equals(HTTP2_PREFACE.subarray(0, length));
    // "P" may start "PRI * HTTP/2.0" as well as "POST": wait until the bytes tell.
    if (isPrefix && length < HTTP2_PREFACE.length) return;
    socket.off("data", onData);
    socket.off("timeout", onTimeout);
    socket.setTimeout(0);
    socket.pause();
    socket.unshift(first);
    route(isPrefix);
  };
  socket.setTimeout(timeoutMs);
  socket.on("timeout", onTimeout);
  socket.on("data", onData);
}
