import type http from "node:http";
import type http2 from "node:http2";

/** A request as Node's HTTP/1.1 and HTTP/2 (compatibility API) servers hand it over. */
export type NodeRequest = http.IncomingMessage | http2.Http2ServerRequest;

/** A response of Node's HTTP/1.1 and HTTP/2 (compatibility API) servers. */
export type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;

/** A request handler served for HTTP/1.1 and HTTP/2 alike. */
export type NodeHandler = (req: NodeRequest, res: NodeResponse) => void;
