import { once } from "node:events";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { answerClientError } from "./client-error.js";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./connection-limits.js";
import { closeAfterEarlyResponse, resetAfterEarlyResponse } from "./early-response.js";
import { routeByFirstBytes } from "./first-bytes.js";
import { limitHttp2Session } from "./http2-session-limits.js";
import type { NodeHandler } from "./node-handler.js";
import { normalizeRequestTarget } from "./origin-form.js";

export type { ConnectionLimits } from "./connection-limits.js";

/** A listening server: where it is, and how to stop it. */
export interface Listening {
  readonly host: string;
  readonly port: number;
  /**
   * Drains: refuses new connections, sends HTTP/2 connections GOAWAY, closes idle HTTP/1.1
   * connections and the others after their current response (`Connection: close`), lets requests
   * in flight finish for up to `timeoutMs`, then cuts the connections left; resolves once every
   * connection is closed, with how many were cut.
   */
  close(timeoutMs?: number): Promise<{ readonly cutConnections: number }>;
}

/**
 * Serves `handler` on one port for HTTP/1.1 (curl, browsers, fetch) and cleartext HTTP/2 with
 * prior knowledge (gRPC). Node's `allowHTTP1` only works with TLS and ALPN, so each connection is
 * routed by its first bytes instead, to an `http` or an `http2` server that never listen
 * themselves.
 */
export async function listen(
  handler: NodeHandler,
  options: { host: string; port: number; limits?: Partial<ConnectionLimits> },
): Promise<Listening> {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  // Responses under way per HTTP/1.1 connection, so that a parser error does not write a status
  // line into a response that has started.
  const responses = new WeakMap<net.Socket, http.ServerResponse>();
  // Set by close(): every HTTP/1.1 connection then ends with its current response.
  let closing = false;
  const serve: NodeHandler = (req, res) => {
    normalizeRequestTarget(req);
    if (res instanceof http.ServerResponse && res.socket !== null) {
      if (closing) res.setHeader("connection", "close");
      const socket = res.socket as net.Socket;
      responses.set(socket, res);
      res.once("close", () => responses.delete(socket));
      closeAfterEarlyResponse(req as http.IncomingMessage, res, limits);
    } else if (res instanceof http2.Http2ServerResponse) {
      resetAfterEarlyResponse(req as http2.Http2ServerRequest, res);
    }
    handler(req, res);
  };

  const h1 = http.createServer(
    {
      keepAliveTimeout: limits.idleTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often the two timeouts above are checked: a late connection is cut at most this late.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    serve,
  );
  // Node enforces headersTimeout and requestTimeout from a timer it starts when the server emits
  // 'listening', which a server fed its sockets by `emit("connection")` never does by itself. It
  // must run before the first connection, which is only tracked if the timer's list exists.
  h1.emit("listening");
  h1.on("clientError", (error: Error & { code?: string }, socket: net.Socket) => {
    answerClientError(error, socket, responses.get(socket)?.headersSent === true);
  });

  const h2 = http2.createServer(
    {
      settings: { maxConcurrentStreams: limits.http2MaxConcurrentStreams },
      streamResetBurst: limits.http2StreamResetBurst,
      streamResetRate: limits.http2StreamResetRate,
    },
    serve,
  );
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    limitHttp2Session(session, limits);
  });

  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A peer that resets the connection must not take the process down.
    socket.on("error", () => socket.destroy());
    routeByFirstBytes(socket, limits.headersTimeoutMs, (isHttp2) => {
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
  front.maxConnections = limits.maxConnections;

  await new Promise<void>((resolveListen, reject) => {
    front.once("error", reject);
    front.listen(options.port, options.host, () => resolveListen());
  });
  const address = front.address() as net.AddressInfo;

  return {
    host: options.host,
    port: address.port,
    close: async (timeoutMs = 10_000) => {
      closing = true;
      const closed = new Promise<void>((done) => front.close(() => done()));
      // A response still to start says `Connection: close`, and Node ends its connection after it;
      // one already started (a stream) leaves its connection idle when it ends, and idle
      // connections are closed as they appear.
      for (const socket of sockets) {
        const response = responses.get(socket);
        if (response !== undefined && !response.headersSent) response.setHeader("connection", "close");
      }
      h1.closeIdleConnections();
      const closeIdle = setInterval(() => h1.closeIdleConnections(), 100);
      closeIdle.unref();
      for (const session of sessions) session.close();
      let cutConnections = 0;
      const timer = setTimeout(() => {
        cutConnections = sockets.size;
        for (const socket of sockets) socket.destroy();
      }, timeoutMs);
      timer.unref();
      await closed;
      // The listener reports closed before its last sockets emit `close`; wait for them, so that
      // every request's own `close` (and its log line) has happened when this resolves.
      await Promise.all([...sockets].map((socket) => once(socket, "close")));
      await new Promise((resolve) => setImmediate(resolve));
      clearTimeout(timer);
      clearInterval(closeIdle);
      h1.close();
      return { cutConnections };
    },
  };
}
