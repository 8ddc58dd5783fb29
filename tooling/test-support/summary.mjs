#!/usr/bin/env node
// Adds up the Vitest JSON reports (`.vitest/results.json`, written by folioVitestConfig's reporter)
// of every workspace package after `turbo run test`, whose own output is interleaved per package.
//
//   node tooling/test-support/summary.mjs --begin   before the run: removes every package's report
//                                                    and stamps the run's start
//   node tooling/test-support/summary.mjs           after the run: one line per package, then the
//                                                    totals as the last line: `N passed, M failed[, K skipped]`
//
// Every package with a `test` script must have a report from this run. One that has none (its tests
// did not run: its build or type check failed, turbo aborted it, Vitest crashed), one older than the
// stamp, or one that cannot be read counts as one failed test and is named on a line of its own, so
// that the totals never look green while a package's tests did not run; so does each error thrown
// outside a test (`.vitest/unhandled-errors.json`), which fails Vitest's run but not its report.
// `--root <dir>` names the workspace (default: this repository). Plain Node, no dependencies: it
// runs whatever state the workspace is in. It always exits 0; the caller exits with turbo's status.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: options } = parseArgs({
  options: {
    begin: { type: "boolean", default: false },
    root: { type: "string", default: join(dirname(fileURLToPath(import.meta.url)), "..", "..") },
  },
});
const root = resolve(options.root);
/** Written by `--begin`: a report older than this file is left over from an earlier run. */
const stampPath = join(root, ".vitest", "run-started");
const REPORT = join(".vitest", "results.json");
/** Errors thrown outside tests, by UnhandledErrorsReporter (src/vitest.ts). */
const UNHANDLED = join(".vitest", "unhandled-errors.json");

/**
 * Directories of the workspace's packages: the `packages:` globs of pnpm-workspace.yaml, in the
 * two forms this workspace uses (`dir` and `dir/*`).
 */
function packageDirectories() {
  const manifest = join(root, "pnpm-workspace.yaml");
  if (!existsSync(manifest)) return [];
  const globs = [];
  let inPackages = false;
  for (const line of readFileSync(manifest, "utf8").split("\n")) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true;
    } else if (inPackages) {
      const entry = /^\s+-\s+["']?([^"'#\s]+)["']?/.exec(line);
      if (entry?.[1] !== undefined) globs.push(entry[1]);
      else if (/^\S/.test(line)) inPackages = false;
    }
  }
  const directories = [];
  for (const glob of globs) {
    if (glob.startsWith("!")) continue;
    if (!glob.endsWith("/*")) {
      directories.push(join(root, glob));
      continue;
    }
    const parent = join(root, glob.slice(0, -2));
    if (!existsSync(parent)) continue;
    const names = readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    for (const name of names) directories.push(join(parent, name));
  }
  return directories;
}

/** The package's manifest, or undefined when the directory holds none (or an unreadable one). */
function manifestOf(directory) {
  try {
    return JSON.parse(readFileSync(join(directory, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
}

function describe(counts) {
  const parts = [`${counts.passed} passed`, `${counts.failed} failed`];
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  return parts.join(", ");
}

/** Counts of one report, or the reason it cannot be trusted (then it counts as one failed test). */
function readReport(directory, runStartedMs) {
  const path = join(directory, REPORT);
  const shown = relative(root, path);
  if (!existsSync(path)) {
    return {
      problem:
        "no test report from this run (its tests did not run: its build or type check failed, turbo aborted it, or it crashed)",
    };
  }
  let report;
  try {
    const writtenMs = statSync(path).mtimeMs;
    if (runStartedMs !== undefined && writtenMs < runStartedMs) {
      return { problem: `stale test report ${shown} (written before this run started)` };
    }
    report = JSON.parse(readFileSync(path, "utf8"));
    if (typeof report !== "object" || report === null) throw new Error("not a Vitest JSON report");
  } catch (error) {
    return { problem: `unreadable test report ${shown} (${error.message})` };
  }
  const counts = {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
  // A file that failed without a failed test (it did not load, or a hook threw) counts as one failure.
  const filesFailedOutsideTests = (report.testResults ?? []).filter(
    (file) =>
      file.status === "failed" && !(file.assertionResults ?? []).some((test) => test.status === "failed"),
  ).length;
  counts.failed += filesFailedOutsideTests;
  let note =
    filesFailedOutsideTests > 0
      ? ` (${filesFailedOutsideTests} test file${filesFailedOutsideTests === 1 ? "" : "s"} failed outside its tests)`
      : "";
  // Vitest fails a run for errors thrown outside tests, yet its report says success: each counts.
  const unhandled = unhandledErrors(directory, runStartedMs);
  if (unhandled.length > 0) {
    counts.failed += unhandled.length;
    const first = unhandled[0];
    note += ` (${unhandled.length} error${unhandled.length === 1 ? "" : "s"} outside tests, the first: ${first.name ?? "Error"}: ${first.message ?? ""}${first.testFile ? ` from ${relative(directory, first.testFile)}` : ""})`;
  }
  if (report.success === false && counts.failed === 0) {
    counts.failed = 1;
    note = " (the run failed without a failed test: no test files?)";
  }
  return { counts, note };
}

/** The errors this run's UnhandledErrorsReporter wrote for the package (none when it wrote none). */
function unhandledErrors(directory, runStartedMs) {
  const path = join(directory, UNHANDLED);
  try {
    if (runStartedMs !== undefined && statSync(path).mtimeMs < runStartedMs) return [];
    const { errors } = JSON.parse(readFileSync(path, "utf8"));
    return Array.isArray(errors) ? errors : [];
  } catch {
    return [];
  }
}

/** `--begin`: no report of an earlier run survives into this one. */
function begin() {
  for (const directory of packageDirectories()) {
    rmSync(join(directory, REPORT), { force: true, maxRetries: 5 });
    rmSync(join(directory, UNHANDLED), { force: true, maxRetries: 5 });
  }
  mkdirSync(dirname(stampPath), { recursive: true });
  writeFileSync(stampPath, `${new Date().toISOString()}\n`);
}

function summarise() {
  const runStartedMs = existsSync(stampPath) ? statSync(stampPath).mtimeMs : undefined;
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const directory of packageDirectories()) {
    const manifest = manifestOf(directory);
    if (typeof manifest?.scripts?.test !== "string") continue;
    const name = manifest.name ?? relative(root, directory);
    const { counts, note, problem } = readReport(directory, runStartedMs);
    if (problem !== undefined) {
      console.log(`${name}: ${problem}: counted as 1 failed`);
      total.failed += 1;
      continue;
    }
    console.log(`${name}: ${describe(counts)}${note}`);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
  console.log(describe(total));
}

if (options.begin) begin();
else summarise();
