import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { DatabaseUnavailableError } from "@folio/db";
import type { Logger } from "pino";
import { requestIdKey } from "../observe/request-id.js";

/** Seconds a client is asked to wait before retrying a call the database could not serve. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * The error interceptor, first in the chain: every failure leaves as a deliberate ConnectError. A
 * database that cannot serve is `unavailable` with Retry-After (the client may retry; nothing was
 * written); anything else unexpected is a bare `internal` error: the client gets the request id
 * to quote, the log gets the cause; SQL and stack traces never leave.
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
      if (error instanceof DatabaseUnavailableError) {
        logger.warn(
          { err: error, requestId, procedure: req.url, reason: error.reason },
          "database unavailable",
        );
        throw new ConnectError(
          `the database is unavailable (${error.reason}); retry in ${DATABASE_RETRY_AFTER_SECONDS}s`,
          Code.Unavailable,
          { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
        );
      }
      logger.error({ err: error, requestId, procedure: req.url }, "request failed");
      throw new ConnectError(`internal error (request id ${requestId})`, Code.Internal);
    }
  };
}
