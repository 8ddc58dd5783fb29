// Runs the command-line tools a REST user points at the API (linters, client generators) the way
// that user would, but offline: a preloaded module refuses every network access and records it.
import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDir } from "@folio/test-support/temp-dir";

const require = createRequire(import.meta.url);
const noNetwork = fileURLToPath(new URL("./fixtures/no-network.mjs", import.meta.url));

/** The file a package's `bin` entry names. */
export function binOf(pkg: string, name: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest) as { bin: string | Record<string, string> };
  return join(dirname(manifest), typeof bin === "string" ? bin : (bin[name] as string));
}

/** What a tool did: its exit code and output, and every network access it tried. */
export interface ToolRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly networkAttempts: readonly string[];
}

/** Runs a Node CLI with `args` in `cwd`, with no network. */
export async function runOffline(
  script: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<ToolRun> {
  const dir = await mkdtemp(join(tmpdir(), "folio-tool-"));
  const log = join(dir, "network.log");
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          ["--import", noNetwork, script, ...args],
          {
            cwd: options.cwd,
            env: { ...process.env, ...options.env, NO_NETWORK_LOG: log, NO_COLOR: "1" },
            maxBuffer: 64 * 1024 * 1024,
            timeout: 120_000,
          },
          (error, stdout, stderr) => {
            const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
            resolve({ code, stdout, stderr });
          },
        );
      },
    );
    const attempts = await readFile(log, "utf8").catch(() => "");
    return { code, stdout, stderr, networkAttempts: attempts.split("\n").filter((line) => line !== "") };
  } finally {
    await removeTempDir(dir);
  }
}
