import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";

/** An import of a module by another: the importing file, the specifier as written, and its chain. */
export interface ImportEdge {
  /** The importing file. */
  readonly from: string;
  /** The specifier as written: `./x.js`, `@folio/http-transcoder/rules`, `node:zlib`. */
  readonly specifier: string;
  /** Whether the import is erased from the built module (`import type`, `export type ... from`). */
  readonly typeOnly: boolean;
  /** The files from an entry point down to the importing one. */
  readonly chain: readonly string[];
}

/** What a walk of an import graph found: every file it read and every import it saw. */
export interface ImportGraph {
  readonly files: ReadonlySet<string>;
  readonly edges: readonly ImportEdge[];
}

/**
 * Walks the import graph of a workspace package from the entry points its package.json exports,
 * statically: every `import`, `export ... from` and `import()` (type-only ones too), following
 * relative imports and the exports of workspace packages (`@folio/*`), but not into other
 * packages. A package's built file (`dist/x.js`) is read from the source it is built from
 * (`src/x.ts`) where there is one, so the walk needs no build and sees type-only imports.
 */
export function walkImportGraph(packageDir: string): ImportGraph {
  const files = new Set<string>();
  const edges: ImportEdge[] = [];
  const queue: { file: string; chain: readonly string[] }[] = exportedFiles(packageDir).map((file) => ({
    file,
    chain: [],
  }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { file, chain } = next;
    if (files.has(file)) continue;
    files.add(file);
    const here = [...chain, file];
    for (const { specifier, typeOnly } of importSpecifiers(file)) {
      edges.push({ from: file, specifier, typeOnly, chain: here });
      const target = resolveImport(file, specifier);
      if (target !== undefined) queue.push({ file: target, chain: here });
    }
  }
  return { files, edges };
}

/** The modules a file imports or re-exports, read with TypeScript's parser. */
function importSpecifiers(file: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: node.importClause?.isTypeOnly === true,
      });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/**
 * The file an import reaches: a relative one from the importing file, a workspace package's through
 * its exports; undefined for any other package and for Node's own modules, which are not walked.
 */
function resolveImport(from: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) return sourceOf(resolve(dirname(from), specifier));
  if (!specifier.startsWith("@folio/")) return undefined;
  const [scope, name, ...rest] = specifier.split("/");
  const packageDir = findPackageDir(dirname(from), `${scope}/${name}`);
  return exportedFile(packageDir, rest.length === 0 ? "." : `./${rest.join("/")}`);
}

/** A workspace package's directory, as Node finds it from a file: in the nearest node_modules. */
function findPackageDir(fromDir: string, name: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`${name} is not installed where ${fromDir} can import it`);
  }
}

/** The files of a package's exports, the entry points of its import graph. */
function exportedFiles(packageDir: string): string[] {
  const exports = packageExports(packageDir);
  return Object.keys(exports)
    .filter((subpath) => !subpath.includes("*") && !subpath.endsWith(".json"))
    .map((subpath) => exportedFile(packageDir, subpath));
}

/** The file a package exports at a subpath (`.`, `./rules`, `./google/api/http_pb.js`), as its source. */
function exportedFile(packageDir: string, subpath: string): string {
  const exports = packageExports(packageDir);
  for (const [key, target] of Object.entries(exports)) {
    const star = key.indexOf("*");
    const matches =
      star < 0
        ? key === subpath
        : subpath.startsWith(key.slice(0, star)) && subpath.endsWith(key.slice(star + 1));
    if (!matches) continue;
    const path = typeof target === "string" ? target : (target.import ?? target.default);
    if (path === undefined) break;
    const value = star < 0 ? "" : subpath.slice(star, subpath.length - (key.length - star - 1));
    return sourceOf(join(packageDir, path.replace("*", value)));
  }
  throw new Error(`${packageDir} does not export "${subpath}"`);
}

type ExportTarget = string | { readonly import?: string; readonly default?: string };

function packageExports(packageDir: string): Record<string, ExportTarget> {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  return typeof manifest.exports === "string" ? { ".": manifest.exports } : manifest.exports;
}

/** The source of a module: `src/x.ts` for `dist/x.js` or `src/x.js`, else the file itself. */
function sourceOf(path: string): string {
  const source = path.replace(/\.js$/, ".ts");
  const candidates = [source, source.replace(/\/dist\//, "/src/"), path];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`no module at ${path} (is its package built?)`);
  return found;
}
