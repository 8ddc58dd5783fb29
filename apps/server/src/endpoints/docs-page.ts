import type { OpenApiDocument } from "@folio/openapi";

// The page is Scalar's API reference rather than Swagger UI: Scalar can be kept fully offline by
// its own settings, and renders OpenAPI 3.1 (JSON Schema 2020-12: `type` arrays, `anyOf` with
// `null`) natively.

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

/** Where the page finds its files, its title and Scalar's settings. */
export interface DocsPageOptions {
  readonly documentPath: string;
  readonly scriptPath: string;
  readonly faviconPath: string;
  readonly title?: string | undefined;
  readonly scalarConfiguration?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The docs page: Scalar's API reference of the document, its settings in a data attribute, and no
 * inline script.
 */
export function docsPage(document: OpenApiDocument, options: DocsPageOptions): string {
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
export function contentSecurityPolicy(document: OpenApiDocument): string {
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
