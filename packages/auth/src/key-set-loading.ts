/**
 * What a key set reports of loading its keys, for logs, metrics and readiness. Each is reported
 * when it happens, never per request.
 */
export type KeySetEvent =
  /** One attempt to load the keys failed: a fetch of the JWKS URL, or a changed JWKS file. */
  | { readonly type: "load-failed"; readonly error: Error }
  /**
   * Loading the keys started failing (once per outage, with the first failure). `keysInUse`: keys
   * loaded before still verify tokens meanwhile.
   */
  | { readonly type: "outage"; readonly error: Error; readonly keysInUse: boolean }
  /** Loading the keys works again, after an outage of `outageMs`. */
  | { readonly type: "recovered"; readonly outageMs: number }
  /**
   * Whether tokens can be verified, when that changes: false while no usable keys are held (no
   * set was ever loaded, or the one held is past its max age), when calls are refused as
   * unavailable (KeySetUnavailableError).
   */
  | { readonly type: "availability"; readonly available: boolean }
  /** A changed JWKS file was read: its `keys` keys verify tokens from now on. */
  | { readonly type: "reloaded"; readonly keys: number };

/** Receives a key set's {@link KeySetEvent}s. */
export type KeySetListener = (event: KeySetEvent) => void;

/**
 * Why the keys could not be loaded. Not a jose error on purpose: verification maps any error that
 * is not jose's to KeySetUnavailableError (retryable), never to a refusal of the token.
 */
export class KeySetLoadError extends Error {
  override readonly name = "KeySetLoadError";
}

/** The loading state of one key set: whether it fails, since when, and what it last reported. */
export interface KeySetLoading {
  /** Whether the last attempt to load the keys failed. */
  readonly failing: boolean;
  /** The error of the last failed attempt, while failing. */
  readonly lastError: KeySetLoadError | undefined;
  /** An attempt failed: reported, and the outage's start when it is the first failure. */
  failed(error: KeySetLoadError): void;
  /** An attempt succeeded: the outage's end when there was one. */
  succeeded(): void;
  /** Reports whether the set is usable, if that changed since it was last reported. */
  evaluate(): void;
  /** Reports an event of the key set's own. */
  emit(event: KeySetEvent): void;
}

/**
 * Tracks the loading of a key set whose usability `usable` tells; a set starts out usable (it is
 * evaluated once its first load was tried).
 */
export function trackLoading(listener: KeySetListener | undefined, usable: () => boolean): KeySetLoading {
  let failingSince: number | undefined;
  let lastError: KeySetLoadError | undefined;
  let available = true;
  const emit = (event: KeySetEvent) => listener?.(event);
  return {
    get failing() {
      return failingSince !== undefined;
    },
    get lastError() {
      return lastError;
    },
    failed(error) {
      lastError = error;
      emit({ type: "load-failed", error });
      if (failingSince !== undefined) return;
      failingSince = Date.now();
      emit({ type: "outage", error, keysInUse: usable() });
    },
    succeeded() {
      if (failingSince === undefined) return;
      const outageMs = Date.now() - failingSince;
      failingSince = undefined;
      lastError = undefined;
      emit({ type: "recovered", outageMs });
    },
    evaluate() {
      const now = usable();
      if (now === available) return;
      available = now;
      emit({ type: "availability", available });
    },
    emit,
  };
}

/** `error` as an Error, for a failure that may have thrown anything. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
