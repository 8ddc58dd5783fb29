import { setTimeout as sleep } from "node:timers/promises";

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Give up after this long (default 60 s: a busy two-core machine starts processes slowly). */
  readonly timeoutMs?: number;
  /** Between two checks (default 100 ms). */
  readonly intervalMs?: number;
  /** Checked before each try: a message here ends the wait at once (e.g. the process exited). */
  readonly abort?: () => string | undefined;
  /** Ends the wait at once when aborted, throwing the signal's reason (the caller gave up). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Calls `check` until it returns something other than `undefined`, and returns that. A check that
 * throws counts as not yet; the last error is named if the time runs out.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    // Read before the check: a condition met just before the abort (a process printing its last
    // line and exiting between two turns) still counts.
    const aborted = options.abort?.();
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (aborted !== undefined) throw new Error(`${what}: ${aborted}`);
    if (performance.now() >= deadline) {
      const cause = lastError === undefined ? "" : ` (last error: ${(lastError as Error).message})`;
      throw new Error(`${what}: not within ${timeoutMs} ms${cause}`);
    }
    // An abort ends the pause early; the next turn throws its reason.
    await sleep(intervalMs, undefined, { signal: options.signal }).catch(() => undefined);
  }
}
