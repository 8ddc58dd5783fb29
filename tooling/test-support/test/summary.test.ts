import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTempDir } from "../src/temp-dir.js";

const summaryScript = fileURLToPath(new URL("../summary.mjs", import.meta.url));
const reporterModule = pathToFileURL(fileURLToPath(new URL("../src/vitest.ts", import.meta.url)));
const vitestCli = join(dirname(fileURLToPath(import.meta.resolve("vitest/package.json"))), "vitest.mjs");

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "folio-summary-"));
  await writeFile(
    join(workspace, "pnpm-workspace.yaml"),
    "packages:\n  - tools\n  - packages/*\n\ncatalog:\n  x: 1\n",
  );
});

afterEach(async () => {
  await removeTempDir(workspace);
});

/** A workspace package; `test: false` leaves out the `test` script. */
async function addPackage(directory: string, name: string, test = true): Promise<string> {
  const path = join(workspace, directory);
  await mkdir(path, { recursive: true });
  const scripts = test ? { test: "vitest run" } : { build: "tsc" };
  await writeFile(join(path, "package.json"), JSON.stringify({ name, scripts }));
  return path;
}

/** Writes the package's `.vitest/results.json` (a string is written as is). */
async function writeReport(packagePath: string, report: object | string): Promise<string> {
  await mkdir(join(packagePath, ".vitest"), { recursive: true });
  const path = join(packagePath, ".vitest", "results.json");
  await writeFile(path, typeof report === "string" ? report : JSON.stringify(report));
  return path;
}

/** The fields of a Vitest JSON report that the summary reads. */
function vitestReport(tests: { passed?: number; failed?: number; skipped?: number }, files: object[] = []) {
  return {
    numPassedTests: tests.passed ?? 0,
    numFailedTests: tests.failed ?? 0,
    numPendingTests: tests.skipped ?? 0,
    numTodoTests: 0,
    success: (tests.failed ?? 0) === 0,
    testResults: files,
  };
}

async function summary(...args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    summaryScript,
    "--root",
    workspace,
    ...args,
  ]);
  return stdout.trimEnd().split("\n");
}

describe("summary.mjs", () => {
  it("adds up this run's reports and counts every package whose tests did not report as failed", async () => {
    const passing = await addPackage("packages/passing", "@fixture/passing");
    const failing = await addPackage("packages/failing", "@fixture/failing");
    const aborted = await addPackage("packages/aborted", "@fixture/aborted");
    const stale = await addPackage("packages/stale", "@fixture/stale");
    const unreadable = await addPackage("packages/unreadable", "@fixture/unreadable");
    const broken = await addPackage("packages/broken", "@fixture/broken");
    const tools = await addPackage("tools", "@fixture/tools");
    await addPackage("packages/untested", "@fixture/untested", false);
    // A report left by an earlier run: --begin removes it, so the package reads as not run.
    const leftover = await writeReport(aborted, vitestReport({ passed: 50 }));

    await summary("--begin");

    await writeReport(passing, vitestReport({ passed: 3, skipped: 1 }));
    await writeReport(failing, vitestReport({ passed: 2, failed: 1 }));
    await writeReport(unreadable, '{"numPassedTests": 4,');
    await writeReport(tools, vitestReport({ passed: 1 }));
    await writeReport(
      broken,
      vitestReport({ passed: 1 }, [
        { name: "a.test.ts", status: "passed", assertionResults: [{ status: "passed" }] },
        { name: "b.test.ts", status: "failed", assertionResults: [] },
      ]),
    );
    // Written after --begin but dated before it, as a report that survived the clean-up would be.
    const staleReport = await writeReport(stale, vitestReport({ passed: 7 }));
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(staleReport, anHourAgo, anHourAgo);

    const lines = await summary();

    expect(lines).toEqual([
      "@fixture/tools: 1 passed, 0 failed",
      "@fixture/aborted: no test report from this run (its tests did not run: its build or type check failed, turbo aborted it, or it crashed): counted as 1 failed",
      "@fixture/broken: 1 passed, 1 failed (1 test file failed outside its tests)",
      "@fixture/failing: 2 passed, 1 failed",
      "@fixture/passing: 3 passed, 0 failed, 1 skipped",
      "@fixture/stale: stale test report packages/stale/.vitest/results.json (written before this run started): counted as 1 failed",
      expect.stringMatching(
        /^@fixture\/unreadable: unreadable test report packages\/unreadable\/\.vitest\/results\.json \(.+\): counted as 1 failed$/,
      ),
      "7 passed, 5 failed, 1 skipped",
    ]);
    expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed(, \d+ skipped)?$/);
    expect(existsSync(leftover)).toBe(false);
  });

  it("ends with `0 passed, 0 failed` when no package has tests", async () => {
    await addPackage("packages/untested", "@fixture/untested", false);
    await summary("--begin");
    expect(await summary()).toEqual(["0 passed, 0 failed"]);
  });

  it("counts a run that failed without a failed test (no test files) as one failure", async () => {
    const empty = await addPackage("packages/empty", "@fixture/empty");
    await summary("--begin");
    await writeReport(empty, { ...vitestReport({}), success: false });
    expect(await summary()).toEqual([
      "@fixture/empty: 0 passed, 1 failed (the run failed without a failed test: no test files?)",
      "0 passed, 1 failed",
    ]);
  });

  it("counts each error thrown outside a test, which fails Vitest's run but not its JSON report", async () => {
    const leaky = await addPackage("packages/leaky", "@fixture/leaky");
    await summary("--begin");
    // A real Vitest run of a test that passes while a rejection goes unhandled.
    await mkdir(join(leaky, "test"));
    await writeFile(
      join(leaky, "test", "leaky.test.js"),
      `it("passes", () => { void Promise.reject(new Error("nobody waited for this")); expect(1).toBe(1); });\n`,
    );
    await writeFile(
      join(leaky, "vitest.config.mjs"),
      `import { UnhandledErrorsReporter } from ${JSON.stringify(reporterModule.href)};\n` +
        `export default { test: { globals: true, include: ["test/**/*.test.js"], reporters: [["json", { outputFile: ".vitest/results.json" }], new UnhandledErrorsReporter()] } };\n`,
    );
    const run = await promisify(execFile)(
      process.execPath,
      [vitestCli, "run", "--config", "vitest.config.mjs"],
      {
        cwd: leaky,
      },
    ).then(
      () => 0,
      (error: { code?: number }) => error.code,
    );
    expect(run).toBe(1);
    expect(await summary()).toEqual([
      "@fixture/leaky: 1 passed, 1 failed (1 error outside tests, the first: Error: nobody waited for this from test/leaky.test.js)",
      "1 passed, 1 failed",
    ]);
  });
});
