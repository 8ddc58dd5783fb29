import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzip } from "node:zlib";
import type { OpenApiDocument } from "./openapi-types.js";

/** The request fields the handler reads: both `http` and `http2` requests have them. */
export interface DocsRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** The response methods the handler calls: both `http` and `http2` responses have them. */
export interface DocsResponse {
  statusCode: number;
  getHeader(name: string): number | string | string[] | undefined;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  end(body?: string | Uint8Array): unknown;
}

/**
 * Serves the document and the docs page. Returns true when it took the request (and answers it,
 * possibly after returning), false when the path is none of its own.
 */
export type ApiDocsHandler = (req: DocsRequest, res: DocsResponse) => boolean;

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
}

/** File name of Scalar's standalone browser bundle, below the docs path. */
const SCALAR_SCRIPT = "scalar-api-reference.js";
/** File name of the page's icon, below the docs path: browsers ask for /favicon.ico otherwise. */
const FAVICON = "favicon.svg";
/** A page with a brace pair: the page's own icon, so that no request leaves for one elsewhere. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2937"/><text x="16" y="22" font-family="monospace" font-size="16" text-anchor="middle" fill="#f9fafb">{}</text></svg>
`;

/**
 * Settings that keep Scalar from reaching the internet: web fonts come from fonts.scalar.com,
 * the developer toolbar offers to upload the document to scalar.com, and the agent chat and MCP
 * button talk to Scalar's services (the agent turns itself on for localhost pages).
 */
const OFFLINE_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
} as const;

/**
 * Serves an OpenAPI document as JSON and a human-readable reference of it, rendered in the
 * browser by Scalar's API reference (`@scalar/api-reference`). The script is the package's
 * standalone bundle, served from node_modules by this handler: the page loads nothing from
 * another origin, and its Content-Security-Policy forbids it to.
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

  let documentAsset: Asset | undefined;
  let pageAsset: Asset | undefined;
  let scriptAsset: Promise<Asset> | undefined;

  const getDocumentAsset = () => {
    documentAsset ??= createAsset(
      "application/json",
      `${JSON.stringify(getDocument(), null, 2)}\n`,
      "no-cache",
    );
    return documentAsset;
  };
  const getPageAsset = () => {
    pageAsset ??= createAsset(
      "text/html; charset=utf-8",
      docsPage(getDocument(), { documentPath, scriptPath, faviconPath, ...options }),
      "no-cache",
    );
    return pageAsset;
  };
  const faviconAsset = createAsset("image/svg+xml", FAVICON_SVG, "public, max-age=86400");
  const getScriptAsset = () => {
    scriptAsset ??= readFile(scalarScriptFile()).then((bytes) =>
      // Not fingerprinted: revalidated after a day, with the ETag.
      createAsset("text/javascript; charset=utf-8", bytes, "public, max-age=86400"),
    );
    return scriptAsset;
  };

  return (req, res) => {
    const path = trimTrailingSlash((req.url ?? "/").split("?")[0] ?? "/");
    let asset: () => Asset | Promise<Asset>;
    let securityPolicy: string | undefined;
    if (path === documentPath) {
      asset = getDocumentAsset;
    } else if (path === docsPath) {
      asset = getPageAsset;
      securityPolicy = contentSecurityPolicy(getDocument());
    } else if (path === scriptPath) {
      asset = getScriptAsset;
    } else if (path === faviconPath) {
      asset = () => faviconAsset;
    } else {
      return false;
    }

    if (req.method !== "GET" && req.method !== "HEAD") {
      res.statusCode = 405;
      res.setHeader("allow", "GET, HEAD");
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end("method not allowed\n");
      return true;
    }
    Promise.resolve()
      .then(asset)
      .then(
        async (found) => {
          if (securityPolicy !== undefined) res.setHeader("content-security-policy", securityPolicy);
          await sendAsset(req, res, found);
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

/** A response body with what it takes to serve it: type, validator, caching, compressed form. */
interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
  readonly etag: string;
  readonly cacheControl: string;
  gzipped: Promise<Buffer> | undefined;
}

function createAsset(contentType: string, body: string | Buffer, cacheControl: string): Asset {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;
  return { contentType, body: bytes, etag, cacheControl, gzipped: undefined };
}

/** Bodies smaller than this are sent as they are: compressing them saves nothing worth the time. */
const GZIP_MIN_BYTES = 1024;

async function sendAsset(req: DocsRequest, res: DocsResponse, asset: Asset): Promise<void> {
  res.setHeader("content-type", asset.contentType);
  res.setHeader("cache-control", asset.cacheControl);
  res.setHeader("etag", asset.etag);
  res.setHeader("x-content-type-options", "nosniff");
  // Added to what is there: a CORS layer before this handler may vary the response by Origin.
  const vary = res.getHeader("vary");
  res.setHeader("vary", vary === undefined || vary === "" ? "accept-encoding" : `${vary}, accept-encoding`);
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch?.split(",").some((tag) => tag.trim() === asset.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  let body = asset.body;
  if (body.length >= GZIP_MIN_BYTES && acceptsGzip(req.headers["accept-encoding"])) {
    asset.gzipped ??= new Promise<Buffer>((resolve, reject) =>
      gzip(asset.body, (error, result) => (error ? reject(error) : resolve(result))),
    );
    body = await asset.gzipped;
    res.setHeader("content-encoding", "gzip");
  }
  res.statusCode = 200;
  res.setHeader("content-length", body.length);
  res.end(req.method === "HEAD" ? undefined : body);
}

function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? "").split(",").some((entry) => {
    const [coding, ...params] = entry.split(";").map((part) => part.trim().toLowerCase());
    return coding === "gzip" && !params.some((param) => /^q=0(\.0*)?$/.test(param));
  });
}

/** The standalone browser bundle of @scalar/api-reference (its package.json `browser` entry). */
function scalarScriptFile(): string {
  // The package exports no subpath for it: find the package by its main entry (dist/index.js).
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return join(dirname(main), "browser", "standalone.js");
}

function docsPage(
  document: OpenApiDocument,
  options: ApiDocsHandlerOptions & { documentPath: string; scriptPath: string; faviconPath: string },
): string {
  const configuration = {
    authentication: preselectedAuthentication(document),
    ...options.scalarConfiguration,
    url: options.documentPath,
    documentDownloadType: "json",
    ...OFFLINE_CONFIGURATION,
  };
  const title = options.title ?? document.info.title;
  // Scalar reads its settings from the data attribute of the element with id `api-reference`
  // (a JSON script block, never run), so the page has no inline script and the policy can forbid
  // inline scripts altogether.
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" type="image/svg+xml" href="${escapeHtml(options.faviconPath)}" />
  </head>
  <body>
    <noscript>This page needs JavaScript. The OpenAPI document is at <a href="${escapeHtml(options.documentPath)}">${escapeHtml(options.documentPath)}</a>.</noscript>
    <script id="api-reference" type="application/json" data-url="${escapeHtml(options.documentPath)}" data-configuration="${escapeHtml(JSON.stringify(configuration))}"></script>
    <script src="${escapeHtml(options.scriptPath)}"></script>
  </body>
</html>
`;
}

/**
 * Scalar's authentication settings for the document's security scheme: selected in the request
 * client, with every scope of its OAuth 2.0 flows, so that "Test request" is authorised once the
 * token is there.
 */
function preselectedAuthentication(document: OpenApiDocument): Record<string, unknown> | undefined {
  const schemes = Object.entries(document.components.securitySchemes ?? {});
  const [first] = schemes;
  if (first === undefined) return undefined;
  const securitySchemes: Record<string, unknown> = {};
  for (const [name, scheme] of schemes) {
    if (scheme.type !== "oauth2") continue;
    const flows: Record<string, unknown> = {};
    for (const [flow, value] of Object.entries(scheme.flows)) {
      flows[flow] = { selectedScopes: Object.keys(value.scopes) };
    }
    securitySchemes[name] = { flows };
  }
  return { preferredSecurityScheme: first[0], securitySchemes };
}

/**
 * The docs page's Content-Security-Policy: everything from this origin only. Scalar's request
 * client may also call the servers the document lists and the token endpoints of its security
 * scheme, when they are on another origin.
 */
function contentSecurityPolicy(document: OpenApiDocument): string {
  const serverOrigins = new Set<string>();
  const urls = (document.servers ?? []).map((server) => server.url);
  for (const scheme of Object.values(document.components.securitySchemes ?? {})) {
    if (scheme.type === "oauth2") {
      for (const flow of Object.values(scheme.flows)) urls.push(flow.tokenUrl ?? "", flow.refreshUrl ?? "");
    } else if (scheme.type === "openIdConnect") {
      urls.push(scheme.openIdConnectUrl);
    }
  }
  for (const url of urls) {
    if (!/^https?:\/\//i.test(url) || url.includes("{")) continue;
    serverOrigins.add(new URL(url).origin);
  }
  const connect = ["'self'", ...serverOrigins].join(" ");
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Scalar injects its stylesheet with a <style> element and sets style attributes.
    "style-src 'self' 'unsafe-inline'",
    // Response previews of the request client are blob: URLs; icons are inline data.
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "frame-src 'self' blob:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join("; ");
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll('"', "&quot;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll("'", "&#39;");
}

function trimTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
