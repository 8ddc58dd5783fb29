import { runBuf } from "./buf.ts";
import { isRaisedIdempotency } from "./idempotency-level.ts";

/**
 * The directory of the API inside the buf module: the baseline records it and the proto check
 * compares it, so imports (google/api, google/protobuf) and any vendored module are left out.
 */
export const API_PATH = "folio";

/** One finding of `buf breaking --error-format json`. */
interface BufFinding {
  readonly path: string;
  readonly start_line: number;
  readonly start_column: number;
  readonly type: string;
  readonly message: string;
}

/**
 * The incompatible changes of the proto in `protoDir` (a buf module) against `againstImage` (a
 * buf image, JSON when its name ends in .json), by `buf breaking` with the rules of the module's
 * buf.yaml (FILE: wire and JSON compatibility, and no removed or renamed RPC, field, message...),
 * one line each as buf reports them in its text format. An RPC's idempotency level raised
 * (`NO_SIDE_EFFECTS` on an RPC that had none) is left out: see idempotency-level.ts.
 */
export async function protoBreakingChanges(protoDir: string, againstImage: string): Promise<string[]> {
  const result = await runBuf(
    ["breaking", ".", "--path", API_PATH, "--against", againstImage, "--error-format", "json"],
    protoDir,
  );
  // buf exits 100 when it found breaking changes, and anything else for an error of its own.
  if (result.code === 0) return [];
  const lines = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.trim() !== "");
  if (result.code !== 100) {
    throw new Error(`buf breaking could not compare (exit ${result.code}):\n${lines.join("\n")}`);
  }
  return lines
    .map((line) => JSON.parse(line) as BufFinding)
    .filter((finding) => !isRaisedIdempotency(finding.type, finding.message))
    .map((finding) => `${finding.path}:${finding.start_line}:${finding.start_column}:${finding.message}`);
}
