import { type LoggerOptions, stdTimeFunctions } from "pino";

/**
 * The shape of every log line, the server's and the `migrate` command's: `level` by its name
 * (`"info"`, not pino's 30) and `time` as an ISO 8601 timestamp in UTC (not milliseconds since
 * 1970), which log pipelines (Loki's `json` stage, Elasticsearch, OpenTelemetry's collector) read
 * as they are; `service: "folio"` on each, and no `pid` or `hostname` (the platform adds its own).
 */
export function logFormat(level: string): LoggerOptions {
  return {
    level,
    base: { service: "folio" },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: stdTimeFunctions.isoTime,
  };
}
