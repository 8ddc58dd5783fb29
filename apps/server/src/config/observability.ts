import { type Env, integer, integerSetting, raw, type SettingGroup, text, textSetting } from "./variables.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export const LOG_LEVEL = textSetting({
  name: "LOG_LEVEL",
  fallback: "info",
  values: LOG_LEVELS.map((level) => `\`${level}\``).join(", "),
  meaning:
    "Logs are JSON lines (pino), `level` by name and `time` in ISO 8601 (UTC): one access log line per " +
    "request (request id, trace id, RPC method, protocol, code, status, duration; never a token), and " +
    "`traceId`/`spanId` on every line written during a traced request. See [Logs](operations.md#logs).",
});

export const METRICS_HOST = textSetting({
  name: "METRICS_HOST",
  fallback: "127.0.0.1",
  values: "an interface's address",
  meaning:
    "Interface of the Prometheus metrics listener (`GET /metrics`), a port of its own apart from the API.",
});

/** The Prometheus exporter's default port, so that scrape configs written for it find Folio too. */
export const METRICS_PORT = integerSetting({
  name: "METRICS_PORT",
  fallback: 9464,
  min: 0,
  max: 65_535,
  values: "an integer from `0` to `65535`, or `off`",
  meaning:
    'Port of the metrics listener; `0` picks a free one (logged as "metrics listening"), `off` turns ' +
    "it off. Several instances on one host need one port each.",
});

/** Read by OpenTelemetry's SDK (observe/tracing.ts asks only whether tracing is wanted). */
export const OTEL = textSetting({
  name: "OTEL_*",
  default: "(unset: tracing off)",
  values: "the OpenTelemetry SDK's variables",
  external: true,
  meaning:
    "OpenTelemetry tracing, on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or " +
    "`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set or `OTEL_TRACES_EXPORTER` names an exporter " +
    "(`otlp`, `console`); off with `OTEL_SDK_DISABLED=true`. The SDK's standard variables apply: " +
    "`OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf` default, `http/json`, `grpc`), " +
    "`OTEL_SERVICE_NAME` (default `folio`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`, " +
    "`OTEL_PROPAGATORS`. Needs Node.js ≥ 22.15.",
});

/** Logs, metrics and traces. */
export const observabilitySettings: SettingGroup = {
  title: "Logs, metrics and traces",
  settings: [LOG_LEVEL, METRICS_HOST, METRICS_PORT, OTEL],
};

/** Where `/metrics` is served; undefined: nowhere (METRICS_PORT=off). */
export function loadMetricsConfig(env: Env): { host: string; port: number } | undefined {
  if (raw(env, METRICS_PORT)?.toLowerCase() === "off") return undefined;
  return { host: text(env, METRICS_HOST), port: integer(env, METRICS_PORT) };
}
