import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { clusterUnavailable } from "./support.ts";

const unavailable = clusterUnavailable();
const loadScript = fileURLToPath(new URL("../bench/load.ts", import.meta.url));

describe.skipIf(unavailable !== undefined)(
  `the load script${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    it("drives the mixed workload through HAProxy for a few seconds and finds every acknowledged create once", () => {
      // A short run of the benchmark (docs/benchmarks.md runs it for 60 s).
      const run = spawnSync(
        process.execPath,
        [
          loadScript,
          "--instances",
          "2",
          "--duration",
          "3",
          "--warmup",
          "1",
          "--connections",
          "10",
          "--orgs",
          "3",
        ],
        { encoding: "utf8", timeout: 55_000 },
      );
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/throughput: \d+ req\/s/);
      expect(run.stdout).toMatch(/latency: p50 \d+(\.\d+)? ms, p99 \d+(\.\d+)? ms/);
      expect(run.stdout).toMatch(/responses by status: 200: \d+, 201: \d+/);
      expect(run.stdout).toMatch(/folio1 RSS: \d+ MB before, \d+ MB after/);
      expect(run.stdout).toMatch(/folio2 RSS: \d+ MB before, \d+ MB after/);
      expect(run.stdout).toContain("every acknowledged create is in the database exactly once");
    });
  },
);
