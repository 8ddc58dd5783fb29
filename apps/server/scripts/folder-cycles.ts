// Fails when the top folders of src/ import each other, directly or through others: a request's
// path reads one way through the tree (observe -> transport, transport -> nothing above it), and
// Biome's import-cycle rule sees only cycles of files. Each file at the top of src/ (app.ts,
// env.ts...) counts as a node of its own. `pnpm lint` runs it.
//
//   node scripts/folder-cycles.ts [--src <folder>]   # --src: another tree (the tests use one)
//
// Imports are read with TypeScript's own scanner (`preProcessFile`): static, dynamic and type-only
// imports and re-exports alike; only relative ones can point into src/.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";

const { values } = parseArgs({ options: { src: { type: "string" } } });
const SRC = resolve(values.src ?? fileURLToPath(new URL("../src", import.meta.url)));

/** The node of a file: its top folder under src/, or the file itself when it is at the top. */
function nodeOf(file: string): string {
  const [top, ...rest] = relative(SRC, file).split(sep);
  return rest.length === 0 ? (top as string) : `${top}/`;
}

/** Every edge between two nodes, with the imports that make it (`from -> to`). */
function folderEdges(): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f));
  for (const name of files) {
    const file = join(SRC, name);
    const from = nodeOf(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolve(dirname(file), fileName);
      if (relative(SRC, target).startsWith("..")) continue;
      const to = nodeOf(target.replace(/\.js$/, ".ts"));
      if (to === from) continue;
      const byTarget = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, byTarget);
      byTarget.set(to, [...(byTarget.get(to) ?? []), `${name} -> ${fileName}`]);
    }
  }
  return edges;
}

/** The strongly connected components of more than one node (Tarjan's algorithm): the cycles. */
function cycles(edges: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

const edges = folderEdges();
const found = cycles(edges);
if (found.length > 0) {
  console.error(`Folders of ${relative(process.cwd(), SRC) || "."} import each other:`);
  for (const component of found) {
    console.error(`\n  ${component.join(", ")}:`);
    for (const from of component) {
      for (const [to, imports] of edges.get(from) ?? []) {
        if (component.includes(to)) for (const line of imports) console.error(`    ${line}`);
      }
    }
  }
  process.exit(1);
}
console.log(`no folder-level import cycle in ${relative(process.cwd(), SRC) || "."}`);
