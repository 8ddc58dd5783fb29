import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "pino";
import { requestIdKey } from "./request-id.js";

/**
 * Turns every failure that is not a deliberate ConnectError into a bare `internal` error: the
 * client gets the request id to quote, the log gets the stack; SQL and stack traces never leave.
 */
export function createErrorInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      const requestId = req.contextValues.get(requestIdKey);
      if (error instanceof ConnectError && error.code !== Code.Unknown && error.code !== Code.Internal) {
        throw error;
      }
      logger.error({ err: error, requestId, procedure: req.url }, "request failed");
      throw new ConnectError(`internal error (request id ${requestId})`, Code.Internal);
    }
  };
}
