// The contract gate's command (see proto/README.md):
//   node src/cli.ts check    fails (exit 1) on an incompatible change of the proto or of the REST
//                            surface against the baseline in proto/baseline/ (part of `pnpm lint`);
//   node src/cli.ts update   re-records the baseline from the proto as it is: the explicit act an
//                            intended break needs, whose diff reviewers see.
// Needs @folio/proto and @folio/openapi built (turbo does that for `lint` and `baseline:update`).
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkContract, passes, recordBaseline } from "./gate.ts";
import { formatReport } from "./report.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const paths = { protoDir: join(root, "proto"), baselineDir: join(root, "proto", "baseline") };
const shown = relative(root, paths.baselineDir);

const command = process.argv[2];
if (command === "check") {
  const report = await checkContract(paths);
  const output = formatReport(report, shown);
  if (passes(report)) {
    console.log(output);
  } else {
    console.error(output);
    process.exitCode = 1;
  }
} else if (command === "update") {
  const changed = await recordBaseline(paths);
  console.log(
    changed.length === 0
      ? `contract gate: the baseline in ${shown} already records the API as it is`
      : `contract gate: recorded ${changed.join(" and ")} in ${shown}; commit it with the change it allows`,
  );
} else {
  console.error("usage: node src/cli.ts check|update");
  process.exitCode = 2;
}
