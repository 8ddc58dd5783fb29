import { PrismaInstrumentation } from "@prisma/instrumentation";

/**
 * Turns every query into OpenTelemetry spans of the active trace (Prisma's own instrumentation:
 * the operation, and each SQL statement with its text, never its parameters). It reaches the
 * tracer through the global OpenTelemetry API, so call it once a tracer provider is registered.
 * Returns how to stop.
 */
export function traceQueries(): () => void {
  const instrumentation = new PrismaInstrumentation();
  instrumentation.enable();
  return () => instrumentation.disable();
}
