import type { ContractReport } from "./gate.ts";
import { passes } from "./gate.ts";

/** The command that re-records the baseline, named in the gate's refusal. */
export const UPDATE_COMMAND = "pnpm --filter @folio/proto baseline:update";

/** The gate's verdict as a reader wants it: what broke, proto and REST, and what to do. */
export function formatReport(report: ContractReport, baseline: string): string {
  if (passes(report)) {
    const pending =
      report.compatibleRestChanges === 0
        ? ""
        : ` (${report.compatibleRestChanges} compatible REST changes since it was recorded: re-record it when they are published, so that they are protected too)`;
    return `contract gate: the proto and the REST surface are compatible with the baseline in ${baseline}${pending}`;
  }
  const lines = [`contract gate: incompatible changes against the baseline in ${baseline}`];
  if (report.proto.length > 0) {
    lines.push("", "proto (buf breaking):", ...report.proto.map((line) => `  ${line}`));
  }
  if (report.rest.length > 0) {
    lines.push(
      "",
      "REST surface (OpenAPI, paths relative to /api/v1):",
      ...report.rest.map((line) => `  ${line}`),
    );
  }
  lines.push(
    "",
    "Clients built against the baseline would break. If the break is intended, re-record the baseline",
    `with \`${UPDATE_COMMAND}\` and commit ${baseline} with the change: its diff shows reviewers what breaks.`,
  );
  return lines.join("\n");
}
