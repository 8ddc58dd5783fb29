import type { Logger } from "pino";
import type { NodeHandler } from "./listen.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./request-id.js";

/**
 * The outermost HTTP layer: gives every request its id (the caller's own when acceptable, on the
 * request for the handlers and on the response for the client) and logs one line per request
 * when its response is finished.
 */
export function withRequestLog(logger: Logger, handler: NodeHandler): NodeHandler {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFor(req.headers[REQUEST_ID_HEADER]);
    // Connect reads the id from the request headers; the response carries it on every protocol.
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    res.on("finish", () => {
      logger.info(
        {
          requestId,
          method: req.method,
          url: req.url,
          httpVersion: req.httpVersion,
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        },
        "request completed",
      );
    });
    handler(req, res);
  };
}
