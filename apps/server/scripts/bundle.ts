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
//    file, its ES module build about a hundred, which cost a start 10-15 ms.
// A bundled module that finds files by its own location finds them from dist/ instead: so the
// migrations are found by @folio/db's package name, and the server depends on
// @scalar/api-reference itself, whose browser script @folio/openapi serves.
import { build, type Plugin } from "esbuild";

const EXTERNAL = ["@folio/embedded-postgres"];

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
  plugins: [commonJsExternals(COMMONJS_EXTERNAL)],
  banner: { js: BANNER },
  // For stack traces in terms of the sources: `node --enable-source-maps dist/main.js`.
  sourcemap: "linked",
  logLevel: "warning",
});

// Not bundled: it must turn the compile cache on before dist/server.js is loaded.
await build({
  entryPoints: { main: "src/main.ts" },
  outdir: "dist",
  platform: "node",
  format: "esm",
  target: "node22.12",
  logLevel: "warning",
});
