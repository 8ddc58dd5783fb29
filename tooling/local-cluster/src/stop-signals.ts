import { constants } from "node:os";

/** What stops the CLI: a supervisor's SIGTERM, Ctrl-C's SIGINT, a closed terminal's SIGHUP. */
export const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * The first signal again this soon is the same request, not a second one: Ctrl-C under pnpm
 * reaches the CLI twice (from the terminal, and forwarded by pnpm), as does a stop sent to a whole
 * process group or cgroup.
 */
const SAME_REQUEST_MS = 500;

/** The stop signals the process received, as abort signals. */
export interface StopRequests {
  /** Aborted at the first stop signal. */
  readonly stop: AbortSignal;
  /**
   * Aborted at a second request (another stop signal, or the first again after SAME_REQUEST_MS),
   * or `hurryAfterMs` after the first: kill what is left.
   */
  readonly hurry: AbortSignal;
  /** The first stop signal, once received. */
  readonly received: StopSignal | undefined;
  /**
   * Once a stop signal was received: ends the process as that signal does by default, so that its
   * parent sees it was stopped by it (a shell's status 128 + the signal's number: 143, 130, 129).
   */
  exit(): never;
}

/** Listens for SIGTERM, SIGINT and SIGHUP from now on: none of them ends the process by itself. */
export function listenForStopSignals(options: { hurryAfterMs: number }): StopRequests {
  const stop = new AbortController();
  const hurry = new AbortController();
  let received: StopSignal | undefined;
  let receivedAt = 0;
  const onSignal = (signal: StopSignal) => {
    if (received === undefined) {
      received = signal;
      receivedAt = performance.now();
      stop.abort(new Error(`stopped by ${signal}`));
      setTimeout(
        () => hurry.abort(new Error(`not stopped within ${options.hurryAfterMs} ms`)),
        options.hurryAfterMs,
      ).unref();
    } else if (signal !== received || performance.now() - receivedAt >= SAME_REQUEST_MS) {
      hurry.abort(new Error(`hurried by ${signal}`));
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    stop: stop.signal,
    hurry: hurry.signal,
    get received() {
      return received;
    },
    exit() {
      if (received === undefined) throw new Error("exit() before a stop signal");
      const signal = received;
      for (const stopSignal of STOP_SIGNALS) process.off(stopSignal, onSignal);
      process.kill(process.pid, signal);
      // Not reached on Linux, where the signal is delivered before kill() returns.
      process.exit(128 + constants.signals[signal]);
    },
  };
}
