import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, sep } from "node:path";
import { splitRequestTarget } from "@folio/http-transcoder";
import type { Logger } from "pino";
import sirv from "sirv";
import { appendVary } from "../transport/cors.js";
import type { NodeHandler } from "../transport/node-handler.js";
import { findWebAppDir } from "./web-app-dir.js";

// In a module of its own, which scripts/bundle.ts imports without this one's dependencies.
export { findWebAppDir };

/**
 * Serves the web app's files and answers its own routes with its page. Returns true when it took
 * the request, false when the path is not the app's.
 */
export type WebAppHandler = (...args: Parameters<NodeHandler>) => boolean;

/**
 * What the page may load: everything from its own origin, nothing from anywhere else. The app
 * calls the API on the same origin, so `connect-src 'self'` is all it needs.
 */
export const WEB_APP_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Vite's output folder of fingerprinted files: a changed file gets a new name. */
const HASHED_ASSETS = "/assets/";

/** The built web app's handler; undefined, with a warning, when the web app is not built. */
export function loadWebApp(logger: Pick<Logger, "warn">): WebAppHandler | undefined {
  const root = findWebAppDir();
  if (root === undefined) logger.warn("the web app is not built (pnpm build): / is not served");
  return root === undefined ? undefined : createWebApp(root);
}

/**
 * Serves the built web app in `root`: its files as they are (precompressed `.br`/`.gz` siblings
 * when the client accepts them, ETags), fingerprinted assets cached for a year, everything else
 * revalidated on each use; `index.html` for `/` and the app's routes (the paths in its
 * `routes.json` and below them), so a reload or a shared link opens the right view.
 */
export function createWebApp(root: string): WebAppHandler {
  const files = new Set(
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          `/${join(entry.parentPath, entry.name)
            .slice(root.length + 1)
            .split(sep)
            .join("/")}`,
      ),
  );
  const routes = appRoutes(root);
  // sirv replaces Vary with Accept-Encoding; the fields set before (Origin, by CORS) are put back.
  const varyBefore = new WeakMap<ServerResponse, string>();
  const serve = sirv(root, {
    etag: true,
    gzip: true,
    brotli: true,
    setHeaders(res, pathname) {
      res.setHeader(
        "cache-control",
        pathname.startsWith(HASHED_ASSETS) ? "public, max-age=31536000, immutable" : "no-cache",
      );
      for (const field of (varyBefore.get(res) ?? "").split(",")) {
        if (field.trim() !== "") appendVary(res, field.trim());
      }
    },
  });

  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const path = decodePath(splitRequestTarget(req.url).path);
    let file: string;
    if (path === "/" || routes.some((route) => path === route || path.startsWith(`${route}/`))) {
      file = "/index.html";
    } else if (files.has(path)) {
      file = path;
    } else {
      return false;
    }
    // sirv's types name HTTP/1 messages; it uses only what HTTP/2's compatibility API has too.
    const response = res as ServerResponse;
    response.setHeader("content-security-policy", WEB_APP_CONTENT_SECURITY_POLICY);
    response.setHeader("x-content-type-options", "nosniff");
    response.setHeader("referrer-policy", "no-referrer");
    response.setHeader("cross-origin-opener-policy", "same-origin");
    const vary = response.getHeader("vary");
    if (vary !== undefined) varyBefore.set(response, String(vary));
    // The file to send, without rewriting req.url: the request log names the path asked for.
    serve({ url: file, method: req.method, headers: req.headers } as IncomingMessage, response);
    return true;
  };
}

/** The app's client-side routes, which the app's build lists in `routes.json`. */
function appRoutes(root: string): string[] {
  const file = join(root, "routes.json");
  if (!existsSync(file)) return [];
  const routes: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(routes) || !routes.every((r) => typeof r === "string" && r.startsWith("/"))) {
    throw new Error(`${file} must be a JSON array of paths`);
  }
  return routes.filter((route) => route !== "/").map((route) => route.replace(/\/+$/, ""));
}

function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
