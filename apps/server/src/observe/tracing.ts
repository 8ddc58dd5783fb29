import { traceQueries } from "@folio/db";
import { isSpanContextValid, trace } from "@opentelemetry/api";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";

/** Running tracing: flushes and stops the exporter. */
export interface Tracing {
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether the environment asks for tracing: an OTLP endpoint, or an `OTEL_TRACES_EXPORTER`
 * other than `none`, and not `OTEL_SDK_DISABLED=true`. Off by default: without a collector to
 * send to, an exporter would only fail.
 */
export function tracingRequested(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(",").map((name) => name.trim().toLowerCase());
  if (exporters?.some((name) => name !== "" && name !== "none")) return true;
  if (exporters?.includes("none")) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts OpenTelemetry's Node SDK, configured by the standard `OTEL_*` variables (exporter,
 * endpoint, protocol, sampler, propagators, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`),
 * for traces only (metrics are Prometheus', logs are pino's), and traces every query. The SDK is
 * loaded only when tracing is on. `spanProcessors` replace the exporter of the environment (tests).
 */
export async function startTracing(options: { spanProcessors?: SpanProcessor[] } = {}): Promise<Tracing> {
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const { defaultResource, resourceFromAttributes } = await import("@opentelemetry/resources");
  const sdk = new NodeSDK({
    // `folio` unless OTEL_SERVICE_NAME says otherwise: the environment's resource is merged last.
    resource: defaultResource().merge(resourceFromAttributes({ "service.name": "folio" })),
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors === undefined ? {} : { spanProcessors: options.spanProcessors }),
  });
  sdk.start();
  const stopQueryTracing = traceQueries();
  return {
    async shutdown() {
      stopQueryTracing();
      await sdk.shutdown();
    },
  };
}

/** pino's `mixin`: the trace and span ids of the active span, in every log line written under it. */
export function traceContextMixin(): Record<string, string> {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
