import type { ConnectError } from "@connectrpc/connect";
import { type AnswerReport, reportError } from "./answer-report.js";
import { errorEnvelope } from "./error-envelope.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";
import { createRequestIdReader } from "./request-id-reader.js";
import { httpStatusOf } from "./rest-errors.js";
import { requestIdHeader, setResponseHeaders } from "./rest-headers.js";
import { supportedContentCodings } from "./supported-codings.js";
import type { HttpTranscoderOptions } from "./transcoder-options.js";

/** Answers failed requests of a transcoder. @private */
export interface ErrorResponder {
  /**
   * Writes the error response: its status, the error's metadata as headers, the request id and
   * the body; reports its code to `report`.
   */
  write(req: NodeRequest, res: NodeResponse, error: ConnectError, report?: AnswerReport): void;
  /** The body of an error response (the envelope, or what the `errorBody` option makes of it); reports its code. */
  body(req: NodeRequest, res: NodeResponse, error: ConnectError, report?: AnswerReport): unknown;
}

/** Creates the {@link ErrorResponder} of a transcoder's options. @private */
export function createErrorResponder(options: HttpTranscoderOptions): ErrorResponder {
  const requestIdOf = createRequestIdReader(options.requestId);
  const errorBody = options.errorBody;
  const errorContentType = options.errorContentType ?? "application/json";
  const jsonOptions = options.jsonOptions ?? {};
  // Details are written as sent: default values left out, like the "debug" form of Connect.
  const detailWriteOptions = {
    alwaysEmitImplicit: false,
    useProtoFieldName: jsonOptions.useProtoFieldName ?? false,
    enumAsInteger: jsonOptions.enumAsInteger ?? false,
    registry: jsonOptions.registry,
  };
  const bodyOf = (error: ConnectError, status: number, requestId: string): unknown => {
    const envelope = errorEnvelope(error, requestId, detailWriteOptions);
    return errorBody === undefined ? envelope : errorBody(error, { status, requestId, envelope });
  };
  return {
    write(req, res, error, report) {
      reportError(report, error);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const requestId = requestIdOf(req, res);
      const status = httpStatusOf(error);
      setResponseHeaders(res, error.metadata);
      res.statusCode = status;
      res.setHeader("content-type", errorContentType);
      res.setHeader(requestIdHeader, requestId);
      if (status === 415) {
        // The codings a request body may have (RFC 9110, section 12.5.3).
        res.setHeader("accept-encoding", supportedContentCodings.join(", "));
      }
      if (status === 413 && req.httpVersionMajor < 2) {
        // The rest of the body is not read: the connection cannot carry another request.
        res.setHeader("connection", "close");
      }
      res.end(JSON.stringify(bodyOf(error, status, requestId)));
    },
    body(req, res, error, report) {
      reportError(report, error);
      return bodyOf(error, httpStatusOf(error), requestIdOf(req, res));
    },
  };
}
