// The server's build (esbuild; types are stripped, not checked: `typecheck` does that):
//  - dist/server.js: src/server.ts, the server, bundled with everything it imports into one module;
//  - dist/main.js: src/main.ts, the process's entry point, which loads dist/server.js;
//  - dist/token-cli.js: src/token-cli.ts, bundled likewise.
//
// Why a bundle: Node resolves, reads and compiles about 700 modules to start the server from the
// packages' own files (protobuf-es, connect-es, Prisma, jose, pino, ...), and that, not our code,
// was most of its start-up time. One file loads in about a third of it.
//
// Left out of the bundle, loaded from node_modules as before:
//  - @folio/embedded-postgres: PGlite reads its WebAssembly and data files next to its own module;
//  - the OpenTelemetry SDK: imported only when tracing is on;
//  - the OpenTelemetry API: the SDK registers its tracer provider through its own import of the
//    API, and a tracer taken from a copy inlined here would stay a no-op (the request spans).
//    Both are loaded with `require` (see commonJsExternals): the API's CommonJS build is one
//    file, its ES module build about a hundred, which cost a start 10-15 ms;
//  - Prisma's query compiler (WebAssembly in base64, 4.6 MB): required from @folio/db's
//    dependencies on the first query through Prisma (see REQUIRED_FROM).
// A bundled module that finds files by its own location finds them from dist/ instead: so the
// migrations are found by @folio/db's package name, and the docs page's script and the web app's
// build (apps/web/dist, which turbo builds first: turbo.json) are copied into dist/.
//
// The package's `dependencies` are what dist/ loads at run time (the packages left out above, and
// the files it reads from @folio/db and @folio/proto); everything bundled is a devDependency, so
// that `pnpm deploy --prod` (the image) carries only what runs.
import { existsSync } from "node:fs";
import { copyFile, cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { BUNDLED_SCALAR_SCRIPT, scalarScriptFile } from "../src/endpoints/docs-script.ts";
import { BUNDLED_WEB_APP_DIR, webAppBuildDir } from "../src/endpoints/web-app-dir.ts";

const EXTERNAL = ["@folio/embedded-postgres"];

/**
 * Modules required, when first used, from where a workspace package of the server resolves them
 * (the server does not depend on their package itself). Prisma's query compiler is WebAssembly
 * written out as 4.6 MB of base64 in a module that the generated client imports on its first
 * query: inlined, it was 60% of the bundle, read at every start and kept by V8 as part of the
 * script's source whether a query goes through Prisma or not. Its CommonJS twin is required.
 */
const REQUIRED_FROM: Readonly<Record<string, { readonly from: string; readonly module: string }>> = {
  "@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs": {
    from: "@folio/db",
    module: "@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js",
  },
};

/** Makes each module of {@link REQUIRED_FROM} a `require` of it from its workspace package's location. */
function requiredFrom(modules: typeof REQUIRED_FROM): Plugin {
  const filter = new RegExp(
    `^(${Object.keys(modules)
      .map((name) => name.replace(/[/.]/g, "\\$&"))
      .join("|")})$`,
  );
  return {
    name: "required-from",
    setup(build) {
      // Named by the CommonJS module, so that esbuild takes the stand-in for CommonJS.
      build.onResolve({ filter }, (args) => {
        const { from, module } = modules[args.path] as (typeof modules)[string];
        return { path: module, namespace: "required-from", pluginData: from };
      });
      build.onLoad({ filter: /.*/, namespace: "required-from" }, (args) => ({
        contents: [
          'const { createRequire } = require("node:module");',
          `module.exports = createRequire(require.resolve(${JSON.stringify(args.pluginData)}))(${JSON.stringify(args.path)});`,
        ].join("\n"),
        loader: "js",
      }));
    },
  };
}

/** Packages loaded from node_modules with `require`, so that they and the SDK share one CommonJS API. */
const COMMONJS_EXTERNAL = ["@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/resources"];

/**
 * Makes each of `packages`, however the bundled code imports it (`import`, `import()`), a
 * `require` of the package from node_modules: a stand-in CommonJS module re-exports it.
 */
function commonJsExternals(packages: readonly string[]): Plugin {
  const filter = new RegExp(`^(${packages.map((name) => name.replaceAll("/", "\\/")).join("|")})$`);
  return {
    name: "commonjs-externals",
    setup(build) {
      build.onResolve({ filter }, (args) =>
        args.namespace === "commonjs-external"
          ? { path: args.path, external: true }
          : { path: args.path, namespace: "commonjs-external" },
      );
      build.onLoad({ filter: /.*/, namespace: "commonjs-external" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };
}

// CommonJS dependencies (pg, pino, ioredis, ...) call `require`, which an ES module lacks.
const BANNER = [
  'import { createRequire as __bundleCreateRequire } from "node:module";',
  "const require = __bundleCreateRequire(import.meta.url);",
].join("\n");

await build({
  entryPoints: { server: "src/server.ts", "token-cli": "src/token-cli.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22.12",
  external: EXTERNAL,
  plugins: [commonJsExternals(COMMONJS_EXTERNAL), requiredFrom(REQUIRED_FROM)],
  banner: { js: BANNER },
  // For stack traces in terms of the sources: `node --enable-source-maps dist/main.js`.
  sourcemap: "linked",
  logLevel: "warning",
});

// esbuild writes the non-ASCII characters of strings, templates and identifiers as escapes (its
// default charset) but copies comments as they are, and one such character makes V8 keep the whole
// source as two bytes per character (and Node decode it on the slow path): those left, in
// comments, become escapes too.
for (const file of ["dist/server.js", "dist/token-cli.js"]) {
  const code = await readFile(file, "utf8");
  const ascii = code.replace(/[\u{80}-\u{10ffff}]/gu, (char) => `\\u{${char.codePointAt(0)?.toString(16)}}`);
  if (ascii !== code) await writeFile(file, ascii);
}

// The one file of @scalar/api-reference that runs (in the browser): with a copy next to server.js,
// the image needs neither that package nor its dependencies (Vue components, icons, editors).
await copyFile(scalarScriptFile().path, `dist/${BUNDLED_SCALAR_SCRIPT}`);

// The web app's build, next to server.js: the server does not depend on @folio/web's package, so
// this copy is how the deployed server has it. Replaced whole, so no asset of an earlier build stays.
const webApp = webAppBuildDir();
if (!existsSync(join(webApp, "index.html"))) {
  throw new Error(`the web app is not built (${webApp}): build the server with turbo, which builds it first`);
}
await rm(`dist/${BUNDLED_WEB_APP_DIR}`, { recursive: true, force: true });
await cp(webApp, `dist/${BUNDLED_WEB_APP_DIR}`, { recursive: true });

// Not bundled: it must turn the compile cache on before dist/server.js is loaded.
await build({
  entryPoints: { main: "src/main.ts" },
  outdir: "dist",
  platform: "node",
  format: "esm",
  target: "node22.12",
  logLevel: "warning",
});
