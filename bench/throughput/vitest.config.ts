import { folioVitestConfig } from "@folio/test-support/vitest";

export default folioVitestConfig({
  test: {
    // The one test file starts three server processes (Folio and both baselines) on a database of
    // its own; waits are on conditions, the timeouts are for hangs.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
