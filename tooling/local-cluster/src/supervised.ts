import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** How a process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process whose output goes to a log file of its own. */
export interface Supervised {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Set once the process has exited. */
  readonly exit: Exit | undefined;
  signal(signal: NodeJS.Signals): void;
  /** Sends `signal` (default SIGTERM), waits up to `timeoutMs` (default 20 s), then kills it. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** The last lines of its log, to explain a failure. */
  tail(lines?: number): Promise<string>;
}

/** How the caller of a start oversees the processes it starts. */
export interface Supervision {
  /**
   * Abandons the start when aborted: what is starting is stopped (SIGTERM) and the start rejects
   * with the signal's reason.
   */
  readonly signal?: AbortSignal | undefined;
  /** Kills the processes (SIGKILL) when aborted, whether starting, running or stopping. */
  readonly kill?: AbortSignal | undefined;
  /**
   * Each process in a process group of its own (default: the caller's), so that what a terminal
   * sends its foreground group (Ctrl-C's SIGINT, a hangup's SIGHUP) reaches only the caller, which
   * stops them in order. Only for a caller that handles those signals: others would leave the
   * processes running.
   */
  readonly detached?: boolean | undefined;
}

/** Options of {@link startSupervised}. */
export interface SupervisedOptions extends Pick<Supervision, "kill" | "detached"> {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Run as this user and group (a root parent starting PostgreSQL's tools as `postgres`). */
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Starts `command` with stdout and stderr appended to `logFile`. The child writes to the file
 * itself, so a busy parent never slows it down, and the log outlives both.
 */
export function startSupervised(
  name: string,
  command: string,
  args: readonly string[],
  logFile: string,
  options: SupervisedOptions = {},
): Supervised {
  const fd = openSync(logFile, "a");
  let exit: Exit | undefined;
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(command, args, {
      stdio: ["ignore", fd, fd],
      env: options.env ?? process.env,
      cwd: options.cwd,
      detached: options.detached ?? false,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
  } finally {
    closeSync(fd);
  }
  const kill = () => child.kill("SIGKILL");
  options.kill?.addEventListener("abort", kill, { once: true });
  if (options.kill?.aborted) kill();
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
    // spawn failures (ENOENT) arrive as "error" without an "exit".
    child.once("error", () => {
      exit ??= { code: -1, signal: null };
      resolve(exit);
    });
  }).finally(() => options.kill?.removeEventListener("abort", kill));
  const tail = async (lines = 20) => {
    const text = await readFile(logFile, "utf8").catch(() => "");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  };
  return {
    name,
    pid: child.pid ?? -1,
    logFile,
    exited,
    get exit() {
      return exit;
    },
    signal(signal) {
      if (exit === undefined) child.kill(signal);
    },
    async stop(signal = "SIGTERM", timeoutMs = 20_000) {
      if (exit !== undefined) return exit;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    tail,
  };
}

/**
 * The error of a process that did not come up: whether it exited by itself or was waited for in
 * vain, with the end of its log. Kills it if it still runs. When the start was abandoned
 * (`signal` aborted), stops it with SIGTERM instead and gives the signal's reason.
 */
export async function startFailed(
  process: Supervised,
  cause: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  if (signal?.aborted) {
    await process.stop("SIGTERM", 10_000);
    return signal.reason;
  }
  const exit = process.exit;
  await process.stop("SIGKILL");
  const what =
    exit === undefined
      ? (cause as Error).message
      : `${process.name} exited (${exit.signal ?? `code ${exit.code}`}) while starting`;
  return new Error(`${what}; the end of ${process.logFile}:\n${await process.tail()}`, { cause });
}
