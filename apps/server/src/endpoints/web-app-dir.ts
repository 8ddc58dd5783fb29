// Where the server finds the built web app. A module of its own, with nothing but Node's modules,
// because scripts/bundle.ts imports it too.
//
// The server does not depend on the `@folio/web` package (the web app is a client of the server):
// it serves the web app's build as a directory. Turbo builds the web app before the server's build
// (apps/server/turbo.json), which copies it into dist/, so that the deployed server (`pnpm deploy`,
// the image) carries it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The copy of the web app's build in dist/, next to dist/server.js, made by scripts/bundle.ts. */
export const BUNDLED_WEB_APP_DIR = "web-app";

/** The web app's own build in the repository, apps/web/dist, found from this file in src/endpoints/. */
export function webAppBuildDir(): string {
  return fileURLToPath(new URL("../../../web/dist", import.meta.url));
}

/**
 * The directory of the built web app, or undefined when it is not built. From the bundle
 * (dist/server.js) it is the copy next to it; from the sources (the tests) it is apps/web/dist.
 * Each path is found from this module's location, so only the one for where it runs can exist.
 */
export function findWebAppDir(): string | undefined {
  const bundled = fileURLToPath(new URL(BUNDLED_WEB_APP_DIR, import.meta.url));
  for (const dir of [bundled, webAppBuildDir()]) {
    if (existsSync(join(dir, "index.html"))) return dir;
  }
  return undefined;
}
