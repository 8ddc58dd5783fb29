import { splitRequestTarget } from "@folio/http-transcoder";
import type { Logger } from "pino";
import type { NodeHandler } from "../transport/node-handler.js";
import type { ReportingHandler } from "../transport/request-report.js";
import type { Metrics } from "./metrics.js";
import { REQUEST_ID_HEADER, requestIdFor } from "./request-id.js";
import { RequestRecord } from "./request-record.js";
import { startRequestSpan } from "./request-span.js";

/**
 * The outermost HTTP layer: gives every request its id (the caller's own when acceptable; in its
 * record for the layers below and on the response for the client), its span and its record, which
 * it hands down as the request's report; when the response is done, it writes one access log line
 * and its metrics, read from the record. The line never holds a header's value: the
 * `Authorization` token stays out of the log.
 */
export function withRequestLog(logger: Logger, metrics: Metrics, handler: ReportingHandler): NodeHandler {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFor(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const record = new RequestRecord(requestId);
    const span = startRequestSpan(req);
    metrics.requestStarted();
    let finished = false;
    res.once("finish", () => {
      finished = true;
    });
    res.once("close", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // A response cut off (the client left, or the shutdown bound was reached) is `canceled`.
      const code = record.outcome(res.statusCode, finished);
      const method = record.method ?? "unknown";
      metrics.requestFinished({ method, protocol: record.protocol, code }, seconds);
      span.end(record, code, res.statusCode);
      const line = {
        requestId,
        traceId: span.traceId,
        protocol: record.protocol,
        method,
        code,
        status: res.statusCode,
        httpMethod: req.method,
        path: splitRequestTarget(req.url).path,
        httpVersion: req.httpVersion,
        durationMs: Math.round(seconds * 1e6) / 1e3,
      };
      if (finished) logger.info(line, "request completed");
      else
        logger.warn(
          { ...line, aborted: true },
          "request aborted: the connection closed before the response was sent",
        );
    });
    span.run(() => handler(req, res, record));
  };
}
