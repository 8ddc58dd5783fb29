import { createContextKey } from "@connectrpc/connect";
import type { NodeRequest } from "./node-handler.js";

/**
 * The connection a call came on (see {@link connectionOf}), for what is counted per connection;
 * undefined for a call that came on none the server knows of (REST's in-process calls).
 */
export const connectionKey = createContextKey<object | undefined>(undefined, { description: "connection" });

/**
 * The one object that stands for a request's connection while it is open: the HTTP/2 session
 * every stream of it shares, or the socket of an HTTP/1.1 connection. (An HTTP/2 request's
 * `socket` is a proxy made for each stream, so it cannot be the key.)
 */
export function connectionOf(req: NodeRequest): object {
  return "stream" in req ? (req.stream.session ?? req.stream) : req.socket;
}
