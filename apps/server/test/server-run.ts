// `node dist/main.js [args]` as an operator runs it, with exactly the environment given (plus
// PATH): for tests of how it starts, refuses to start, or runs a command and exits.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** A run of the process: what it wrote so far, and how it ended once it has. */
export interface ServerRun {
  readonly child: ChildProcess;
  /** Its log lines (stdout, JSON), parsed, as they come. */
  readonly lines: Record<string, unknown>[];
  /** Its stderr lines, as they come. */
  readonly stderr: string[];
  /** Resolves with its exit code once it has exited and its output has been read. */
  readonly exited: Promise<number | null>;
  /** Resolves with the first log line `accept` takes (waiting for it); rejects if it exits first. */
  line(accept: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Kills it (SIGKILL) if it still runs, and waits for its end. */
  stop(): Promise<void>;
}

/** Starts `node dist/main.js ...args` with `env` (plus PATH) and nothing else of this process's environment. */
export function runServer(env: Record<string, string>, args: readonly string[] = []): ServerRun {
  const child = spawn(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const waiting = new Set<() => void>();
  const read = (stream: NodeJS.ReadableStream, onLine: (text: string) => void) =>
    new Promise<void>((resolve) =>
      createInterface({ input: stream }).on("line", onLine).on("close", resolve),
    );
  const output = Promise.all([
    read(child.stdout as NodeJS.ReadableStream, (text) => {
      lines.push(JSON.parse(text) as Record<string, unknown>);
      for (const wake of waiting) wake();
    }),
    read(child.stderr as NodeJS.ReadableStream, (text) => stderr.push(text)),
  ]);
  const code = new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  const exited = Promise.all([code, output]).then(([exitCode]) => exitCode);
  // Never left behind: a test that times out (or a worker that is torn down) ends it too.
  const orphaned = () => child.kill("SIGKILL");
  process.once("exit", orphaned);
  void exited.then(() => process.off("exit", orphaned));

  const line = (accept: (line: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const look = () => {
        const found = lines.find(accept);
        if (found === undefined) return;
        waiting.delete(look);
        resolve(found);
      };
      waiting.add(look);
      look();
      void exited.then((exitCode) => {
        waiting.delete(look);
        reject(new Error(`exited with ${exitCode} first; stderr: ${stderr.join("\n")}`));
      });
    });
  return {
    child,
    lines,
    stderr,
    exited,
    line,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
