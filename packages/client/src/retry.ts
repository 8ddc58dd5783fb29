import { Code } from "@connectrpc/connect";
import { FolioError } from "./errors.js";

/** How a client retries a call that failed for a passing reason. */
export interface RetryOptions {
  /** Attempts in all, the first included: 1 turns retries off. Default 4. */
  readonly maxAttempts?: number;
  /** Delay before the first retry when the server names none, in ms; doubled each time. Default 250. */
  readonly initialDelayMs?: number;
  /** Longest delay between two attempts, in ms (a longer Retry-After ends retrying). Default 10 000. */
  readonly maxDelayMs?: number;
}

/** Retries off: every call is made once. */
export const NO_RETRIES: RetryOptions = { maxAttempts: 1 };

/** The codes worth another attempt: the server said it could not serve now, and changed nothing. */
const RETRYABLE = new Set([Code.Unavailable, Code.ResourceExhausted, Code.Aborted]);

/**
 * The delay before attempt `attempt + 1` after `error`, in ms, or undefined to stop: the server's
 * Retry-After when it sent one, else exponential back-off with full jitter (a random share of the
 * doubled delay, so that clients that failed together do not return together).
 */
export function retryDelay(
  error: FolioError,
  attempt: number,
  options: RetryOptions = {},
): number | undefined {
  const { maxAttempts = 4, initialDelayMs = 250, maxDelayMs = 10_000 } = options;
  if (attempt >= maxAttempts || !RETRYABLE.has(error.code)) return undefined;
  if (error.retryAfterSeconds !== undefined) {
    const delay = error.retryAfterSeconds * 1000;
    return delay > maxDelayMs ? undefined : delay;
  }
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries run out; a wait that would end
 * after `deadline` (epoch ms) or after `signal` aborts is not started: the last error is thrown.
 * Why by hand: connect-es has no retry interceptor (connectrpc/connect-es#987), and openapi-fetch
 * none either; the same loop serves both.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryOptions & {
    readonly signal?: AbortSignal | undefined;
    readonly deadline?: number | undefined;
  },
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (reason) {
      const error = FolioError.from(reason);
      const delay = retryDelay(error, n, options);
      if (delay === undefined || options.signal?.aborted) throw error;
      if (options.deadline !== undefined && Date.now() + delay >= options.deadline) throw error;
      await sleep(delay, options.signal).catch(() => {
        throw error;
      });
    }
  }
}

/**
 * Resolves once `ms` have passed by the wall clock (`Date.now()`), or rejects when `signal` aborts
 * first. A timer may fire a millisecond early by that clock (Node's timers run on a monotonic
 * clock and round), and a retry sent before the server's Retry-After has passed can be refused
 * again: so the wait is checked when the timer fires and resumed until the deadline has passed.
 */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout>;
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const wait = () => {
      const left = until - Date.now();
      if (left <= 0) {
        signal?.removeEventListener("abort", abort);
        resolve();
        return;
      }
      timer = setTimeout(wait, left);
    };
    signal?.addEventListener("abort", abort, { once: true });
    wait();
  });
}
