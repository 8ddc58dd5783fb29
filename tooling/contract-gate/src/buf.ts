import { execFile } from "node:child_process";
import { createRequire } from "node:module";

/** The buf CLI of the npm package @bufbuild/buf (a Node script that runs the platform's binary). */
const BUF = createRequire(import.meta.url).resolve("@bufbuild/buf/bin/buf");

/** How a buf command ended: its exit code and what it printed. */
export interface BufResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `buf ...args` in `cwd` and resolves with how it ended, whatever its exit code. */
export function runBuf(args: readonly string[], cwd: string): Promise<BufResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BUF, ...args],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== "number") reject(error);
        else resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

/** Runs `buf ...args` in `cwd`, and throws with buf's own message when it fails. */
export async function buf(args: readonly string[], cwd: string): Promise<string> {
  const result = await runBuf(args, cwd);
  if (result.code !== 0) {
    throw new Error(`buf ${args.join(" ")} failed (exit ${result.code}):\n${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}
