import type { KeySetEvent } from "@folio/auth";
import type { Logger } from "pino";
import type { Metrics } from "../observe/metrics.js";

/** What the server knows of its signing keys (the JWKS), from the key set's events. */
export interface SigningKeys {
  /** Whether tokens can be verified: false while no usable keys are held (readiness reads it). */
  readonly available: boolean;
  /** Receives the key set's events (`onKeySetEvent` of @folio/auth's verifier). */
  readonly onEvent: (event: KeySetEvent) => void;
}

/**
 * Follows the signing keys: counts each failed load (`folio_jwks_fetch_failures_total`), logs an
 * outage once when it starts (warn) and once when it ends, never per request, logs a JWKS file
 * read again, and tracks whether tokens can be verified at all, for readiness.
 */
export function watchSigningKeys(logger: Logger, metrics: Pick<Metrics, "jwksFetchFailed">): SigningKeys {
  let available = true;
  return {
    get available() {
      return available;
    },
    onEvent(event) {
      switch (event.type) {
        case "load-failed":
          metrics.jwksFetchFailed();
          return;
        case "outage":
          logger.warn(
            { err: event.error, keysInUse: event.keysInUse },
            event.keysInUse
              ? "signing keys could not be loaded; the keys loaded before stay in use"
              : "signing keys could not be loaded; calls are refused as unavailable until they are",
          );
          return;
        case "recovered":
          logger.info({ outageMs: event.outageMs }, "signing keys loaded again");
          return;
        case "availability":
          // Logged by readiness, which turns on it.
          available = event.available;
          return;
        case "reloaded":
          logger.info({ keys: event.keys }, "JWKS file changed: its keys verify tokens from now on");
          return;
      }
    },
  };
}
