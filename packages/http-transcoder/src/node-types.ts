import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

/** The request of a Node `http`, `https` or `http2` server (the compatibility API). */
export type NodeServerRequest = IncomingMessage | Http2ServerRequest;

/** The response of a Node `http`, `https` or `http2` server (the compatibility API). */
export type NodeServerResponse = ServerResponse | Http2ServerResponse;

/** A Node request handler, as `http.createServer()` and `http2.createServer()` take. */
export type NodeHandlerFn = (req: NodeServerRequest, res: NodeServerResponse) => void;
