import { splitRequestTarget } from "@folio/http-transcoder";
import {
  type Attributes,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { NodeRequest } from "../transport/node-handler.js";
import type { RequestRecord } from "./request-record.js";

/** The tracer of the server's request spans; a no-op until tracing starts (see tracing.ts). */
const tracer = trace.getTracer("@folio/server");

/** Connect codes that are the server's failure, not the client's (as gRPC's semantic conventions list them). */
const SERVER_ERRORS = new Set([
  "unknown",
  "deadline_exceeded",
  "unimplemented",
  "internal",
  "unavailable",
  "data_loss",
]);

/** gRPC's numeric status codes, by Connect's name (the `rpc.grpc.status_code` attribute). */
const GRPC_STATUS: Readonly<Record<string, number>> = {
  ok: 0,
  canceled: 1,
  unknown: 2,
  invalid_argument: 3,
  deadline_exceeded: 4,
  not_found: 5,
  already_exists: 6,
  permission_denied: 7,
  resource_exhausted: 8,
  failed_precondition: 9,
  aborted: 10,
  out_of_range: 11,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  data_loss: 15,
  unauthenticated: 16,
};

/** The span of one request, from its arrival to the end of its response. */
export interface RequestSpan {
  /** The request's trace id when it is traced (tracing on), the caller's own when it sent `traceparent`. */
  readonly traceId: string | undefined;
  /** Runs the request's handler with this span active: database spans and log lines join it. */
  run(handler: () => void): void;
  /** Names the span after what the request turned out to be, records its outcome and ends it. */
  end(record: RequestRecord, code: string, status: number): void;
}

/**
 * Starts the server span of a request (OpenTelemetry's HTTP and RPC semantic conventions), as the
 * child of the caller's span when the request carries W3C `traceparent`.
 */
export function startRequestSpan(req: NodeRequest): RequestSpan {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const httpMethod = req.method ?? "GET";
  const userAgent = req.headers["user-agent"];
  const span = tracer.startSpan(
    httpMethod,
    {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": httpMethod,
        "url.path": splitRequestTarget(req.url).path,
        "url.scheme": "http",
        "network.protocol.version": req.httpVersion === "2.0" ? "2" : req.httpVersion,
        ...(typeof userAgent === "string" ? { "user_agent.original": userAgent } : {}),
        ...(req.socket?.remoteAddress ? { "client.address": req.socket.remoteAddress } : {}),
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  const spanContext = span.spanContext();
  return {
    traceId: isSpanContextValid(spanContext) ? spanContext.traceId : undefined,
    run: (handler) => context.with(active, handler),
    end(record, code, status) {
      const attributes: Attributes = { "http.response.status_code": status };
      const rpc = record.method?.includes("/") === true && record.protocol !== "http";
      if (rpc && record.method !== undefined) {
        const [service, method] = record.method.split("/");
        span.updateName(record.method);
        attributes["rpc.service"] = service;
        attributes["rpc.method"] = method;
        if (record.protocol === "grpc" || record.protocol === "grpc-web") {
          attributes["rpc.system"] = "grpc";
          attributes["rpc.grpc.status_code"] = GRPC_STATUS[code] ?? 2;
        } else if (record.protocol === "connect") {
          attributes["rpc.system"] = "connect_rpc";
          if (code !== "ok") attributes["rpc.connect_rpc.error_code"] = code;
        }
      } else if (record.method !== undefined) {
        span.updateName(`${httpMethod} ${record.method}`);
      }
      if (code !== "ok") attributes["error.type"] = code;
      span.setAttributes(attributes);
      if (SERVER_ERRORS.has(code) || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
