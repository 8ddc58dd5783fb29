#!/usr/bin/env node
// Adds up the Vitest JSON reports (`.vitest/results.json`, written by folioVitestConfig's reporter)
// of every workspace package after `turbo run test`, whose own output is interleaved per package.
// Prints one line per package, then the totals as the last line: `N passed, M failed[, K skipped]`.
// Plain Node, no dependencies: it runs after the tests whatever state the workspace is in. It always
// exits 0; the caller exits with turbo's status.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Package directories that may hold a report: apps/*, packages/* and proto. */
function packageDirectories() {
  const directories = [];
  for (const parent of ["apps", "packages"]) {
    const path = join(root, parent);
    if (!existsSync(path)) continue;
    const names = readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    for (const name of names) directories.push(join(path, name));
  }
  directories.push(join(root, "proto"));
  return directories;
}

function packageName(directory) {
  try {
    return (
      JSON.parse(readFileSync(join(directory, "package.json"), "utf8")).name ?? relative(root, directory)
    );
  } catch {
    return relative(root, directory);
  }
}

function describe(counts) {
  const parts = [`${counts.passed} passed`, `${counts.failed} failed`];
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  return parts.join(", ");
}

const total = { passed: 0, failed: 0, skipped: 0 };
for (const directory of packageDirectories()) {
  const reportPath = join(directory, ".vitest", "results.json");
  if (!existsSync(reportPath)) continue;
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8"));
  } catch (error) {
    console.log(
      `${packageName(directory)}: unreadable report ${relative(root, reportPath)} (${error.message})`,
    );
    continue;
  }
  const counts = {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
  // A test file that fails to load has no tests to count; say so rather than look green.
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === "failed" && (file.assertionResults ?? []).length === 0,
  ).length;
  const note =
    brokenFiles > 0 ? ` (${brokenFiles} test file${brokenFiles === 1 ? "" : "s"} failed to run)` : "";
  console.log(`${packageName(directory)}: ${describe(counts)}${note}`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(describe(total));
