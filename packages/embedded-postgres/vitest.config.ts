import { defineConfig } from "vitest/config";

// Not @folio/test-support's folioVitestConfig: test-support depends on this package.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", ["json", { outputFile: ".vitest/results.json" }]],
  },
});
