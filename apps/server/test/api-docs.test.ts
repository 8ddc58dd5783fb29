import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createFolioOpenApiDocument } from "@folio/api-document";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiDocsHandler } from "../src/endpoints/docs-handler.js";

// The docs page's handler on its own, over real HTTP/1.1 and HTTP/2 on 127.0.0.1, serving the
// document of development mode (an OAuth 2.0 scheme with scopes).

/** The document served. */
function folioDocument() {
  return createFolioOpenApiDocument({ mode: "development" });
}

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
/** `.ci/run` sets FOLIO_REQUIRE_TOOLS=1: there a missing Chromium fails the browser test instead of skipping it. */
const skipBrowserTest = !hasChromium && process.env.FOLIO_REQUIRE_TOOLS !== "1";

let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  const docs = createApiDocsHandler({ document: folioDocument });
  server = http.createServer((req, res) => {
    if (docs(req, res)) return;
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A GET with Node's http client: fetch hides Content-Encoding and adds its own Accept-Encoding. */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${baseUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on("error", reject);
  });
}

/** The `src` and `href` attributes of a page: every URL it loads or links to. */
function linkedUrls(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1] as string);
}

describe("GET /api/v1/openapi.json", () => {
  it("serves the document as JSON", async () => {
    const res = await fetch(`${baseUrl}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(folioDocument())));
  });

  it("answers a request with the current ETag with 304", async () => {
    const first = await fetch(`${baseUrl}/api/v1/openapi.json`);
    const etag = first.headers.get("etag");
    // sirv's ETags are weak: the file's size and modification time.
    expect(etag).toMatch(/^W\/".+"$/);
    const second = await fetch(`${baseUrl}/api/v1/openapi.json`, {
      headers: { "if-none-match": etag as string },
    });
    expect(second.status).toBe(304);
  });

  it("compresses the document for clients that accept gzip", async () => {
    const res = await rawGet("/api/v1/openapi.json", { "accept-encoding": "gzip, br" });
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(res.body).toString())).toEqual(JSON.parse(JSON.stringify(folioDocument())));

    const plain = await rawGet("/api/v1/openapi.json");
    expect(plain.headers["content-encoding"]).toBeUndefined();
  });

  it("refuses methods other than GET and HEAD with 405", async () => {
    const res = await fetch(`${baseUrl}/api/v1/openapi.json`, { method: "POST", body: "{}" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");

    const head = await fetch(`${baseUrl}/api/v1/openapi.json`, { method: "HEAD" });
    expect(head.status).toBe(200);
  });

  it("leaves other paths to the next handler", async () => {
    expect((await fetch(`${baseUrl}/api/v1/projects`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/api/v1/docs/other.js`)).status).toBe(404);
  });
});

describe("GET /api/v1/docs", () => {
  it("serves an HTML page that loads only same-origin assets, and those assets are served", async () => {
    const res = await fetch(`${baseUrl}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();

    const urls = linkedUrls(html);
    expect(urls).toContain("/api/v1/openapi.json");
    expect(urls).toContain("/api/v1/docs/scalar-api-reference.js");
    for (const url of urls) {
      // Absolute paths of this origin: no scheme, no protocol-relative `//host`.
      expect(url).toMatch(/^\/(?!\/)/);
      const asset = await fetch(`${baseUrl}${url}`);
      expect(asset.status, url).toBe(200);
      if (url.endsWith(".js"))
        expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    }
  });

  it("serves Scalar's standalone bundle, gzipped for clients that accept it", async () => {
    const res = await rawGet("/api/v1/docs/scalar-api-reference.js", { "accept-encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(res.body).toString()).toContain("createApiReference");
  });

  it("forbids the page to load anything from another origin", async () => {
    const res = await fetch(`${baseUrl}/api/v1/docs`);
    const policy = res.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("font-src 'self' data:");
  });

  it("turns off Scalar's web fonts, agent, MCP button and developer toolbar", async () => {
    const html = await (await fetch(`${baseUrl}/api/v1/docs`)).text();
    const attribute = /data-configuration="([^"]*)"/.exec(html)?.[1] ?? "";
    const configuration = JSON.parse(
      attribute.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&"),
    );
    expect(configuration).toMatchObject({
      url: "/api/v1/openapi.json",
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
    });
  });

  it("preselects the document's security scheme with every scope, for the request client", async () => {
    const html = await (await fetch(`${baseUrl}/api/v1/docs`)).text();
    const attribute = /data-configuration="([^"]*)"/.exec(html)?.[1] ?? "";
    const configuration = JSON.parse(
      attribute.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&"),
    );
    const scheme = folioDocument().components.securitySchemes?.oauth2;
    const scopes = scheme?.type === "oauth2" ? Object.keys(scheme.flows.clientCredentials?.scopes ?? {}) : [];
    expect(scopes.length).toBeGreaterThan(1);
    expect(configuration.authentication).toEqual({
      preferredSecurityScheme: "oauth2",
      securitySchemes: { oauth2: { flows: { clientCredentials: { selectedScopes: scopes } } } },
    });
  });

  it("serves the page at configurable paths", async () => {
    const docs = createApiDocsHandler({
      document: folioDocument,
      documentPath: "/openapi.json",
      docsPath: "/reference/",
    });
    const other = http.createServer((req, res) => {
      if (!docs(req, res)) {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const html = await (await fetch(`${otherUrl}/reference`)).text();
      expect(linkedUrls(html)).toEqual([
        "/reference/favicon.svg",
        "/openapi.json",
        "/reference/scalar-api-reference.js",
      ]);
      expect((await fetch(`${otherUrl}/reference/favicon.svg`)).headers.get("content-type")).toBe(
        "image/svg+xml",
      );
      expect((await fetch(`${otherUrl}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${otherUrl}/reference/scalar-api-reference.js`)).status).toBe(200);
      expect((await fetch(`${otherUrl}/api/v1/docs`)).status).toBe(404);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("serves the script named by scalarScript instead of node_modules' one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docs-script-"));
    const script = join(dir, "standalone.js");
    await writeFile(script, "/* a copy of Scalar's standalone bundle */\n");
    const docs = createApiDocsHandler({ document: folioDocument, scalarScript: script });
    const other = http.createServer((req, res) => {
      if (!docs(req, res)) {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const res = await fetch(`${otherUrl}/api/v1/docs/scalar-api-reference.js`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("/* a copy of Scalar's standalone bundle */\n");
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("serves HTTP/2 requests too", async () => {
    const docs = createApiDocsHandler({ document: folioDocument });
    const h2 = http2.createServer((req, res) => {
      if (!docs(req, res)) {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
    const client = http2.connect(`http://127.0.0.1:${(h2.address() as AddressInfo).port}`);
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = client.request({ ":path": "/api/v1/openapi.json" });
        let status = 0;
        let body = "";
        stream.on("response", (headers) => {
          status = Number(headers[":status"]);
        });
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => {
          body += chunk;
        });
        stream.on("end", () => resolve({ status, body }));
        stream.on("error", reject);
      });
      expect(status).toBe(200);
      expect(JSON.parse(body).openapi).toBe("3.1.1");
    } finally {
      client.close();
      await new Promise((resolve) => h2.close(resolve));
    }
  });

  it.skipIf(skipBrowserTest)(
    `renders the operations in headless Chromium without a request outside 127.0.0.1${skipBrowserTest ? ` (skipped: ${CHROMIUM} is not installed)` : ""}`,
    async () => {
      const { chromium } = await import("playwright-core");
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--no-first-run",
        ],
      });
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        page.on("request", (request) => requested.push(request.url()));
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        const failed: string[] = [];
        page.on("response", (response) => {
          if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
        });

        await page.goto(`${baseUrl}/api/v1/docs`);
        await page.getByText("Get folder").first().waitFor({ timeout: 30_000 });
        await page.getByText("Create folder").first().waitFor({ timeout: 30_000 });
        // Give any late request (fonts, telemetry) time to show up; Scalar keeps a connection
        // open, so "networkidle" never comes.
        await page.waitForTimeout(2_000);

        expect(errors).toEqual([]);
        // No 404 for /favicon.ico or anything else: the page names its own icon.
        expect(failed).toEqual([]);
        expect(requested).toContain(`${baseUrl}/api/v1/openapi.json`);
        const outside = requested.filter((url) => {
          const { protocol, hostname } = new URL(url);
          return !(protocol === "data:" || protocol === "blob:" || hostname === "127.0.0.1");
        });
        expect(outside).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
