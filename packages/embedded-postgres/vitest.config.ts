import { defineConfig } from "vitest/config";

// Not @folio/test-support's folioVitestConfig (test-support depends on this package): the same
// settings, kept in step by hand.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ["default", ["json", { outputFile: ".vitest/results.json" }]],
  },
});
