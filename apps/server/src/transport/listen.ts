import { once } from "node:events";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { answerClientError } from "./client-error.js";
import { closeAfterEarlyResponse } from "./early-response.js";
import { limitHttp2Session } from "./http2-session-limits.js";
import type { NodeHandler } from "./node-handler.js";
import { normalizeRequestTarget } from "./request-target.js";

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

/** What one client may hold of the server, on HTTP/1.1 and HTTP/2 alike. */
export interface ConnectionLimits {
  /**
   * A connection must send its first bytes, and each request its complete headers, within this
   * (on HTTP/2: open its first stream); otherwise it is closed (HTTP/1.1: 408 first).
   */
  readonly headersTimeoutMs: number;
  /** A request, body included, must arrive within this of its start. */
  readonly requestTimeoutMs: number;
  /** A connection without a request in progress is closed after this. */
  readonly idleTimeoutMs: number;
  /** Connections open at once; further ones are closed as they arrive. */
  readonly maxConnections: number;
  /** Streams a client may open at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
  readonly http2MaxConcurrentStreams: number;
  /**
   * Stream resets (RST_STREAM) a client may send on one HTTP/2 connection: a burst, then a rate
   * per second (a token bucket); beyond it the connection is closed with GOAWAY (rapid reset,
   * CVE-2023-44487).
   */
  readonly http2StreamResetBurst: number;
  readonly http2StreamResetRate: number;
}

/** The limits used when none are given; every one of them is configurable (see env.ts). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  // Longer than the 60 s idle timeout of common load balancers, which should close first.
  idleTimeoutMs: 65_000,
  maxConnections: 10_000,
  http2MaxConcurrentStreams: 100,
  http2StreamResetBurst: 100,
  http2StreamResetRate: 33,
};

/** First bytes of every HTTP/2 connection (RFC 9113, section 3.4); no HTTP/1 method starts so. */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0");

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
      closeAfterEarlyResponse(req as http.IncomingMessage, res);
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

/**
 * Reads a connection's first bytes until they tell HTTP/2's preface from an HTTP/1.1 request,
 * puts them back, and hands the paused socket on. A connection that does not tell within
 * `timeoutMs` (one that sends nothing at all, say) is closed.
 */
function routeByFirstBytes(socket: net.Socket, timeoutMs: number, route: (isHttp2: boolean) => void): void {
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
