/** The Vitest settings every Folio package shares (`vitest.config.ts`: `folioVitestConfig()`). */
import { defineConfig, type ViteUserConfig } from "vitest/config";
import { UnhandledErrorsReporter } from "./unhandled-errors-reporter.ts";

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
