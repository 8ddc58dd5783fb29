// Where a server's CPU goes, by package: reads the .cpuprofile files that `compare.ts --profile`
// writes and sums each sample's self time by the package of the code it was in. Folio's server is
// one bundle; its source map (dist/server.js.map) gives the file, and so the package, of each
// function. A baseline's files are named by their own paths.
//
//   node bench/throughput/src/profile-by-package.ts <profile directory or .cpuprofile> [--top N]
//
// Rows: a package of node_modules (`@prisma/client`), a workspace package or app (`apps/server`),
// `node:*` (Node's own JavaScript), and V8's own entries: `(garbage collector)`, `(program)` and
// native functions (`(native) writev`). Idle time is left out: shares are of the busy CPU.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "20" } },
});
const target = positionals[0];
if (target === undefined) {
  console.error(
    "Usage: node bench/throughput/src/profile-by-package.ts <profile directory or .cpuprofile> [--top N]",
  );
  process.exit(2);
}
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((name) => name.endsWith(".cpuprofile"))
      .map((name) => join(target, name))
  : [target];

/** Source maps of bundles, by the bundle's path; null where a file has none. */
const sourceMaps = new Map<string, { map: SourceMap; dir: string } | null>();

function sourceMapOf(path: string): { map: SourceMap; dir: string } | null {
  let known = sourceMaps.get(path);
  if (known === undefined) {
    try {
      known = { map: new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8"))), dir: dirname(path) };
    } catch {
      known = null;
    }
    sourceMaps.set(path, known);
  }
  return known;
}

/** The package a file belongs to: the last `node_modules/<name>` in its path, else its workspace folder. */
function packageOfFile(file: string): string {
  const parts = file.split("/");
  const modules = parts.lastIndexOf("node_modules");
  if (modules >= 0) {
    const name = parts[modules + 1] ?? "?";
    return name.startsWith("@") ? `${name}/${parts[modules + 2]}` : name;
  }
  for (const root of ["apps", "packages", "bench", "tooling"]) {
    const at = parts.lastIndexOf(root);
    if (at >= 0 && parts[at + 1] !== undefined) return `${root}/${parts[at + 1]}`;
  }
  return file;
}

function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === "")
    return functionName.startsWith("(") ? functionName : `(native) ${functionName || "anonymous"}`;
  if (url.startsWith("node:")) return "node:*";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const bundle = sourceMapOf(path);
  if (bundle !== null) {
    const entry = bundle.map.findEntry(frame.lineNumber, frame.columnNumber);
    if ("originalSource" in entry && entry.originalSource)
      return packageOfFile(resolve(bundle.dir, entry.originalSource));
  }
  return packageOfFile(path);
}

const selfTime = new Map<string, number>();
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const packages = new Map<number, string>();
  profile.samples.forEach((id, i) => {
    let name = packages.get(id);
    if (name === undefined) {
      name = packageOf((byId.get(id) as ProfileNode).callFrame);
      packages.set(id, name);
    }
    selfTime.set(name, (selfTime.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
}
selfTime.delete("(idle)");
const busy = [...selfTime.values()].reduce((sum, time) => sum + time, 0);
const rows = [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(`${files.length} profile(s), ${(busy / 1e6).toFixed(1)} s of busy CPU\n`);
console.log("| share | package |\n| ----: | ------- |");
for (const [name, time] of rows) console.log(`| ${((100 * time) / busy).toFixed(1)}% | ${name} |`);
