import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

/** A request as Node's `http`, `https` and `http2` (compatibility API) servers hand it over. */
export type NodeRequest = IncomingMessage | Http2ServerRequest;

/** A response of Node's `http`, `https` and `http2` (compatibility API) servers. */
export type NodeResponse = ServerResponse | Http2ServerResponse;

/** A request handler served for HTTP/1.1 and HTTP/2 alike, as `http.createServer()` and `http2.createServer()` take. */
export type NodeHandler = (req: NodeRequest, res: NodeResponse) => void;
