import { folioVitestConfig } from "@folio/test-support/vitest";

export default folioVitestConfig({
  test: {
    // Each file starts a cluster of its own (HAProxy, PgBouncer, Redis, several server processes):
    // one at a time, on a machine of two cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
