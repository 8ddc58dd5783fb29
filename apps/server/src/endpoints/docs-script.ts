import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The docs page's script in dist/: Scalar's standalone bundle, copied there by scripts/bundle.ts. */
export const BUNDLED_SCALAR_SCRIPT = "scalar-api-reference.js";

/**
 * The copy of the docs page's script next to dist/server.js, so that a production install needs
 * neither `@scalar/api-reference` nor its dependencies; undefined when the server runs from its
 * sources, where {@link scalarScriptFile} finds the script in node_modules.
 */
export function bundledScalarScript(): string | undefined {
  const path = fileURLToPath(new URL(BUNDLED_SCALAR_SCRIPT, import.meta.url));
  return existsSync(path) ? path : undefined;
}

/** The standalone browser bundle of @scalar/api-reference (its package.json `browser` entry): the docs page's script. */
export function scalarScriptFile(): { readonly path: string } {
  // The package exports no subpath for it: find the package by its main entry (dist/index.js).
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return { path: join(dirname(main), "browser", "standalone.js") };
}
