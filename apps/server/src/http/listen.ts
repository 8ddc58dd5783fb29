import http from "node:http";
import http2 from "node:http2";
import net from "node:net";

/** A request handler served for HTTP/1.1 and HTTP/2 alike. */
export type NodeHandler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

/** A listening server: where it is, and how to stop it. */
export interface Listening {
  readonly host: string;
  readonly port: number;
  /** Stops accepting, lets requests in flight finish for up to `timeoutMs`, then cuts the rest. */
  close(timeoutMs?: number): Promise<void>;
}

/** First bytes of every HTTP/2 connection (RFC 9113, section 3.4); no HTTP/1 method starts so. */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0");

/**
 * Serves `handler` on one port for HTTP/1.1 (curl, browsers, fetch) and cleartext HTTP/2 with
 * prior knowledge (gRPC). Node's `allowHTTP1` only works with TLS and ALPN, so each connection is
 * routed by its first bytes instead.
 */
export async function listen(
  handler: NodeHandler,
  options: { host: string; port: number },
): Promise<Listening> {
  const h1 = http.createServer(
    { keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 300_000 },
    handler,
  );
  const h2 = http2.createServer({}, handler);
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });

  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A peer that resets the connection must not take the process down.
    socket.on("error", () => socket.destroy());
    socket.once("data", (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      const isHttp2 = first.subarray(0, HTTP2_PREFACE.length).equals(HTTP2_PREFACE.subarray(0, first.length));
      // The http2 session takes the socket over and reads what was unshifted itself; the http
      // server reads it as a stream, so that one must be resumed.
      if (isHttp2) {
        h2.emit("connection", socket);
      } else {
        h1.emit("connection", socket);
        socket.resume();
      }
    });
  });

  await new Promise<void>((resolveListen, reject) => {
    front.once("error", reject);
    front.listen(options.port, options.host, () => resolveListen());
  });
  const address = front.address() as net.AddressInfo;

  return {
    host: options.host,
    port: address.port,
    close: async (timeoutMs = 10_000) => {
      const closed = new Promise<void>((done) => front.close(() => done()));
      h1.close();
      h1.closeIdleConnections();
      for (const session of sessions) session.close();
      const timer = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, timeoutMs);
      timer.unref();
      await closed;
      clearTimeout(timer);
    },
  };
}
