import type { Db } from "@folio/db";
import type { Logger } from "pino";

/** How often expired idempotency keys are deleted (an expired key is ignored even before). */
const PURGE_INTERVAL_MS = 3_600_000;

/** Deletes expired idempotency keys hourly, in the background; `stop()` ends it. */
export function scheduleIdempotencyPurge(db: Db, logger: Logger): { stop(): void } {
  const timer = setInterval(() => {
    db.idempotencyKeys.purgeExpired().then(
      (count) => count > 0 && logger.info({ count }, "expired idempotency keys deleted"),
      (error: unknown) => logger.warn({ err: error }, "could not delete expired idempotency keys"),
    );
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
