/** A timer for a key set's background work: one run pending at a time, stopped for good by `signal`. */
export interface BackgroundTimer {
  /** Runs `work` in `delayMs`, unless a run is pending already or the signal has aborted. */
  schedule(delayMs: number, work: () => void): void;
}

/** Creates a {@link BackgroundTimer}; its timers never keep the process alive by themselves. */
export function createBackgroundTimer(signal: AbortSignal | undefined): BackgroundTimer {
  let timer: NodeJS.Timeout | undefined;
  signal?.addEventListener("abort", () => clearTimeout(timer), { once: true });
  return {
    schedule(delayMs, work) {
      if (timer !== undefined || signal?.aborted) return;
      timer = setTimeout(() => {
        timer = undefined;
        work();
      }, delayMs);
      timer.unref();
    },
  };
}
