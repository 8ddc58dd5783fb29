import { runBuf } from "./buf.ts";

/**
 * The directory of the API inside the buf module: the baseline records it and the proto check
 * compares it, so imports (google/api, google/protobuf) and any vendored module are left out.
 */
export const API_PATH = "folio";

/**
 * The incompatible changes of the proto in `protoDir` (a buf module) against `againstImage` (a
 * buf image, JSON when its name ends in .json), by `buf breaking` with the rules of the module's
 * buf.yaml (FILE: wire and JSON compatibility, and no removed or renamed RPC, field, message...),
 * one line each as buf reports them.
 */
export async function protoBreakingChanges(protoDir: string, againstImage: string): Promise<string[]> {
  const result = await runBuf(["breaking", ".", "--path", API_PATH, "--against", againstImage], protoDir);
  // buf exits 100 when it found breaking changes, and anything else for an error of its own.
  if (result.code === 0) return [];
  const lines = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.trim() !== "");
  if (result.code !== 100) {
    throw new Error(`buf breaking could not compare (exit ${result.code}):\n${lines.join("\n")}`);
  }
  return lines;
}
