import type { IncomingMessage, ServerResponse } from "node:http";
import { type NodeRequest, type NodeResponse, splitRequestTarget } from "@folio/http-transcoder";
import type { OpenApiDocument } from "@folio/openapi";
import sirv from "sirv";
import { type DocsFile, writeDocsFiles } from "./docs-files.js";
import { contentSecurityPolicy, docsPage } from "./docs-page.js";
import { scalarScriptFile } from "./docs-script.js";

/** The request the handler reads: an `http` or `http2` server's. */
export type DocsRequest = NodeRequest;

/** The response the handler writes: an `http` or `http2` server's. */
export type DocsResponse = NodeResponse;

/**
 * Serves the document and the docs page. Returns true when it took the request (and answers it,
 * possibly after returning), false when the path is none of its own.
 */
export type ApiDocsHandler = (req: DocsRequest, res: DocsResponse) => boolean;

/** Options of {@link createApiDocsHandler}. */
export interface ApiDocsHandlerOptions {
  /** The OpenAPI document, or a function that builds it, called once, on the first request. */
  readonly document: OpenApiDocument | (() => OpenApiDocument);
  /** Where the document is served. Default: `/api/v1/openapi.json`. */
  readonly documentPath?: string;
  /** Where the docs page is served; its script is served below it. Default: `/api/v1/docs`. */
  readonly docsPath?: string;
  /** Title of the docs page. Default: the document's `info.title`. */
  readonly title?: string;
  /**
   * More settings for Scalar's API reference
   * (https://github.com/scalar/scalar/blob/main/documentation/configuration.md), e.g. `theme`.
   * The settings that keep the page offline always win.
   */
  readonly scalarConfiguration?: Readonly<Record<string, unknown>>;
  /**
   * The path of Scalar's standalone browser bundle. Default: the one of `@scalar/api-reference`
   * in node_modules; a server bundled with its dependencies may ship a copy of that one file instead.
   */
  readonly scalarScript?: string;
}

/** File name of Scalar's standalone browser bundle, below the docs path. */
const SCALAR_SCRIPT = "scalar-api-reference.js";
/** File name of the page's icon, below the docs path: browsers ask for /favicon.ico otherwise. */
const FAVICON = "favicon.svg";
/** A page with a brace pair: the page's own icon, so that no request leaves for one elsewhere. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2937"/><text x="16" y="22" font-family="monospace" font-size="16" text-anchor="middle" fill="#f9fafb">{}</text></svg>
`;

/** A file the handler serves at a path, with the headers it goes with. */
interface ServedFile extends DocsFile {
  readonly contentType: string;
  readonly cacheControl: string;
}

/** A static file server of the written docs files (sirv's handler). */
type FileServer = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Serves an OpenAPI document as JSON and a human-readable reference of it, rendered in the
 * browser by Scalar's API reference (`@scalar/api-reference`). The script is the package's
 * standalone bundle from node_modules: the page loads nothing from another origin, and its
 * Content-Security-Policy forbids it to. On the first request, the document, the page, the script
 * and the icon are written to a directory of their own (with gzipped copies), which `sirv` serves
 * from then on: ETags, `304 Not Modified`, gzip for clients that accept it.
 */
export function createApiDocsHandler(options: ApiDocsHandlerOptions): ApiDocsHandler {
  const documentPath = options.documentPath ?? "/api/v1/openapi.json";
  const docsPath = trimTrailingSlash(options.docsPath ?? "/api/v1/docs");
  const scriptPath = `${docsPath}/${SCALAR_SCRIPT}`;
  const faviconPath = `${docsPath}/${FAVICON}`;
  let document: OpenApiDocument | undefined;
  const getDocument = () => {
    document ??= typeof options.document === "function" ? options.document() : options.document;
    return document;
  };
  const page: ServedFile = {
    name: "index.html",
    contentType: "text/html; charset=utf-8",
    cacheControl: "no-cache",
    body: () => docsPage(getDocument(), { ...options, documentPath, scriptPath, faviconPath }),
  };
  const files = new Map<string, ServedFile>([
    [
      documentPath,
      {
        name: "openapi.json",
        contentType: "application/json",
        cacheControl: "no-cache",
        body: () => `${JSON.stringify(getDocument(), null, 2)}\n`,
      },
    ],
    [docsPath, page],
    // Not fingerprinted: revalidated after a day, with the ETag.
    [
      scriptPath,
      {
        name: SCALAR_SCRIPT,
        contentType: "text/javascript; charset=utf-8",
        cacheControl: "public, max-age=86400",
        body: () =>
          options.scalarScript === undefined ? scalarScriptFile() : { path: options.scalarScript },
      },
    ],
    [
      faviconPath,
      {
        name: FAVICON,
        contentType: "image/svg+xml",
        cacheControl: "public, max-age=86400",
        body: () => FAVICON_SVG,
      },
    ],
  ]);
  let fileServer: Promise<FileServer> | undefined;
  return (req, res) => {
    const path = trimTrailingSlash(splitRequestTarget(req.url).path);
    const file = files.get(path);
    if (file === undefined) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.statusCode = 405;
      res.setHeader("allow", "GET, HEAD");
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end("method not allowed\n");
      return true;
    }
    fileServer ??= writeDocsFiles([...files.values()]).then(serveFiles);
    fileServer.then(
      (serve) => {
        if (file === page) res.setHeader("content-security-policy", contentSecurityPolicy(getDocument()));
        res.setHeader("content-type", file.contentType);
        res.setHeader("cache-control", file.cacheControl);
        res.setHeader("x-content-type-options", "nosniff");
        varyBefore.set(res, res.getHeader("vary"));
        // The file by its name in the directory, without rewriting req.url (a log names the path asked for).
        const fileRequest = { url: `/${file.name}`, method: req.method, headers: req.headers };
        // sirv's types name HTTP/1 messages; it uses only what HTTP/2's compatibility API has too.
        serve(fileRequest as IncomingMessage, res as ServerResponse);
      },
      (error: unknown) => {
        res.statusCode = 500;
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.end(`cannot serve ${path}: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
    return true;
  };
}

/** The `Vary` a response had before sirv set its own: a CORS layer may vary it by `Origin`. */
const varyBefore = new WeakMap<object, number | string | string[] | undefined>();

function serveFiles(dir: string): FileServer {
  return sirv(dir, {
    etag: true,
    gzip: true,
    setHeaders(res) {
      const vary = varyBefore.get(res);
      res.setHeader(
        "vary",
        vary === undefined || vary === "" ? "accept-encoding" : `${vary}, accept-encoding`,
      );
    },
  });
}

function trimTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
