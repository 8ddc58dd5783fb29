import { folioVitestConfig } from "@folio/test-support/vitest";

export default folioVitestConfig({
  test: {
    // Each database test file starts server processes (Folio and the baselines it compares) on a
    // database of its own; waits are on conditions, the timeouts are for hangs.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
