/** The Vitest settings every Folio package shares (`vitest.config.ts`: `folioVitestConfig()`). */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineConfig, type ViteUserConfig } from "vitest/config";
import type { Reporter, SerializedError, TestRunEndReason, Vitest } from "vitest/node";

/**
 * Folio's Vitest config: tests in `test/`, timeouts that allow for starting a database, and a JSON
 * report in `.vitest/results.json` (with the errors thrown outside tests in
 * `.vitest/unhandled-errors.json`) that `summary.mjs` adds up after `turbo run test`. A key of
 * `overrides` (or of `overrides.test`) replaces the default one.
 */
export function folioVitestConfig(overrides: ViteUserConfig = {}): ViteUserConfig {
  const { test, ...rest } = overrides;
  return defineConfig({
    ...rest,
    test: {
      include: ["test/**/*.test.ts"],
      // Starting an embedded database (PGlite runs initdb in WebAssembly) takes seconds on an idle
      // machine and tens of seconds on two cores busy with other packages' tests: the timeouts
      // are for hangs, not for measuring speed.
      testTimeout: 120_000,
      hookTimeout: 180_000,
      // expect.poll gives up after 1 s by default: a condition that holds within milliseconds on
      // an idle machine can take seconds on a loaded one. Polls wait for conditions, not timing.
      expect: { poll: { timeout: 15_000 } },
      reporters: ["default", ["json", { outputFile: ".vitest/results.json" }], new UnhandledErrorsReporter()],
      ...test,
    },
  });
}

/** Where {@link UnhandledErrorsReporter} writes, relative to the package: `summary.mjs` reads it. */
const UNHANDLED_ERRORS_REPORT = join(".vitest", "unhandled-errors.json");

/**
 * Writes the errors thrown outside any test (an unhandled rejection, an error event nobody
 * listens to) to `.vitest/unhandled-errors.json`. Vitest fails the run for them, but its JSON
 * report still says `success: true` with no failed test: without this file the suite's totals
 * would read green while `npm test` exits 1.
 */
export class UnhandledErrorsReporter implements Reporter {
  #root = process.cwd();

  onInit(vitest: Vitest): void {
    this.#root = vitest.config.root;
  }

  onTestRunEnd(_modules: unknown, errors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const report = {
      reason,
      errors: errors.map((error) => ({
        name: error.name,
        message: error.message,
        // Vitest names the test file an error came from, where it knows it.
        testFile: (error as { VITEST_TEST_PATH?: string }).VITEST_TEST_PATH,
      })),
    };
    const path = join(this.#root, UNHANDLED_ERRORS_REPORT);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  }
}
