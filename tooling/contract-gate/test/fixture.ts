import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's buf module of the API. */
export const PROTO_DIR = fileURLToPath(new URL("../../../proto", import.meta.url));

/** What is not part of the buf module: built files, installed packages, the recorded baseline. */
const NOT_COPIED = new Set(["node_modules", "dist", "src", "baseline", ".turbo"]);

/**
 * A copy of the repository's buf module in a new temporary directory (under `parent`), with its
 * node_modules linked (buf.yaml reads the google/api protos from there): a fixture to change.
 */
export function copyProtoModule(parent: string): string {
  const dir = mkdtempSync(join(parent, "proto-"));
  cpSync(PROTO_DIR, dir, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(relative(PROTO_DIR, source).split("/")[0] ?? ""),
  });
  symlinkSync(join(PROTO_DIR, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** A new temporary directory of a test file. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "folio-contract-test-"));
}

/**
 * Rewrites `file` (relative to the module `dir`) with `edit`, and fails when the edit changed
 * nothing: a fixture change that did not apply would let a test pass for the wrong reason.
 */
export function editProto(dir: string, file: string, edit: (source: string) => string): void {
  const path = join(dir, file);
  const before = readFileSync(path, "utf8");
  const after = edit(before);
  if (after === before) throw new Error(`the fixture edit of ${file} changed nothing`);
  writeFileSync(path, after);
}
