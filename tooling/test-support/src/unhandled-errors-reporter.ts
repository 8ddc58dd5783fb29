import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Reporter, SerializedError, TestRunEndReason, Vitest } from "vitest/node";

/** Where {@link UnhandledErrorsReporter} writes, relative to the package: `summary.mjs` reads it. */
export const UNHANDLED_ERRORS_REPORT = join(".vitest", "unhandled-errors.json");

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
    mkdirSync(join(this.#root, ".vitest"), { recursive: true });
    writeFileSync(join(this.#root, UNHANDLED_ERRORS_REPORT), `${JSON.stringify(report, null, 2)}\n`);
  }
}
