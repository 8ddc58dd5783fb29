import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebApp, WEB_APP_CONTENT_SECURITY_POLICY } from "../src/endpoints/web-app.js";
import { createCors } from "../src/transport/cors.js";

const INDEX =
  '<!doctype html><title>Folio</title><script type="module" src="/assets/app-3f9a1c.js"></script>';
const SCRIPT = `console.log(${JSON.stringify("x".repeat(2000))});`;

let dir: string;
let server: http.Server;
let baseUrl: string;

/** A built app as Vite leaves it: index.html, fingerprinted assets (with a .gz), public files, routes.json. */
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "folio-web-app-"));
  await mkdir(join(dir, "assets"));
  await writeFile(join(dir, "index.html"), INDEX);
  await writeFile(join(dir, "assets", "app-3f9a1c.js"), SCRIPT);
  await writeFile(join(dir, "assets", "app-3f9a1c.js.gz"), gzipSync(SCRIPT));
  await writeFile(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  await writeFile(join(dir, "routes.json"), JSON.stringify(["/", "/folders/new", "/connection"]));

  const cors = createCors(["http://127.0.0.1:5173"]);
  const webApp = createWebApp(dir);
  server = http.createServer((req, res) => {
    if (cors(req, res)) return;
    if (webApp(req, res)) return;
    res.statusCode = 404;
    res.end("next handler");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await removeTempDir(dir);
});

/** A GET with Node's http client: fetch would decompress and add its own Accept-Encoding. */
function rawGet(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(`${baseUrl}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        })
        .on("error", reject);
    },
  );
}

describe("the web app's files", () => {
  it("serves the page at / revalidated on every use, under a same-origin Content-Security-Policy", async () => {
    const res = await rawGet("/");
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(INDEX);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const csp = res.headers["content-security-policy"] ?? "";
    expect(csp).toBe(WEB_APP_CONTENT_SECURITY_POLICY);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");

    const again = await rawGet("/", { "if-none-match": String(res.headers.etag) });
    expect(again.status).toBe(304);
  });

  it("caches fingerprinted assets for a year, immutable, and sends them compressed when accepted", async () => {
    const plain = await rawGet("/assets/app-3f9a1c.js");
    expect(plain.status).toBe(200);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);

    const gzipped = await rawGet("/assets/app-3f9a1c.js", { "accept-encoding": "gzip" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(gunzipSync(gzipped.body).toString()).toBe(SCRIPT);
    expect(String(gzipped.headers.vary).toLowerCase()).toContain("accept-encoding");
  });

  it("revalidates files that keep their name (favicon)", async () => {
    const res = await rawGet("/favicon.svg");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("image/svg+xml");
    expect(res.headers["cache-control"]).toBe("no-cache");
  });

  it("answers the app's own routes with its page, so a reload or a shared link works", async () => {
    for (const path of ["/folders/new", "/folders/new/", "/connection", "/connection?x=1"]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(200);
      expect(res.body.toString(), path).toBe(INDEX);
      expect(res.headers["cache-control"], path).toBe("no-cache");
    }
  });

  it("leaves every other path and method to the next handler", async () => {
    for (const path of [
      "/nope",
      "/folders",
      "/api/v1/projects",
      "/folio.v1.ProjectService/ListProjects",
      "/../x",
    ]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString(), path).toBe("next handler");
    }
    const post = await fetch(`${baseUrl}/`, { method: "POST", body: "{}" });
    expect(await post.text()).toBe("next handler");
  });

  it("keeps Vary: Origin from CORS next to Accept-Encoding", async () => {
    const res = await rawGet("/assets/app-3f9a1c.js", {
      origin: "http://127.0.0.1:5173",
      "accept-encoding": "gzip",
    });
    const vary = String(res.headers.vary).toLowerCase();
    expect(vary).toContain("origin");
    expect(vary).toContain("accept-encoding");
  });
});
