/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser: they use the DOM.
// REST as a browser sees it, from a page of the web app served by Folio: a large page of projects
// arrives compressed and decodes, and the browser's revalidation of it (fetch with
// `cache: "no-cache"`) is answered 304 from its ETag, the page still reading the whole list.
import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findWebAppDir } from "../src/endpoints/web-app.js";
import { browserTestsSkipped, launchChromium, skipBrowserTests, watchPage } from "./browser.js";
import { startTestServer, type TestServer } from "./harness.js";

const STEP_MS = 30_000;
const ORG = randomUUID();
/** Enough projects that their page is far over the compression threshold (1024 bytes). */
const PROJECTS = 200;

describe.skipIf(skipBrowserTests)(`REST from a page in headless Chromium${browserTestsSkipped}`, () => {
  let browser: Browser;
  let server: TestServer;
  let token: string;
  const log: Record<string, unknown>[] = [];

  beforeAll(async () => {
    if (findWebAppDir() === undefined) throw new Error("the web app is not built: run pnpm build");
    server = await startTestServer({}, { log: (line) => log.push(line) });
    await server.sql(
      `INSERT INTO projects (org_id, name, city)
       SELECT $1::uuid, 'Project ' || lpad(n::text, 3, '0'), 'Lyon' FROM generate_series(1, $2::int) AS n`,
      [ORG, PROJECTS],
    );
    token = await server.issuer.sign({ org_id: ORG, sub: randomUUID(), scope: "project:read" }, {}, "1h");
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The access log line of a request, once written. */
  async function statusLogged(requestId: string): Promise<unknown> {
    await expect
      .poll(() => log.some((line) => line.requestId === requestId), { timeout: STEP_MS })
      .toBe(true);
    return log.find((line) => line.requestId === requestId)?.status;
  }

  it("gets a large page compressed, decodes it, and revalidates it with its ETag (304)", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    const watch = watchPage(page);
    // The web app's own page: the requests below are the page's, on its origin.
    await page.goto(`${server.baseUrl}/`);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const seen = await page.evaluate(
      async ({ token, ids, pageSize }) => {
        const url = `/api/v1/projects?pageSize=${pageSize}`;
        const get = async (requestId: string, cache: RequestCache, headers: Record<string, string> = {}) => {
          const response = await fetch(url, {
            cache,
            headers: { authorization: `Bearer ${token}`, "x-request-id": requestId, ...headers },
          });
          const text = await response.text();
          return {
            status: response.status,
            encoding: response.headers.get("content-encoding"),
            etag: response.headers.get("etag"),
            projects: text === "" ? 0 : (JSON.parse(text) as { projects: unknown[] }).projects.length,
          };
        };
        // The first time, and again as a page that polls would: the browser revalidates what it
        // keeps (`private, no-cache`) with If-None-Match, and gives the page the kept answer.
        const first = await get(ids[0] as string, "no-cache");
        const again = await get(ids[1] as string, "no-cache");
        // The tag sent by the page itself, bypassing the browser's cache: the page sees the 304.
        const tagged = await get(ids[2] as string, "no-store", { "if-none-match": first.etag ?? "" });
        return { first, again, tagged };
      },
      { token, ids, pageSize: PROJECTS },
    );

    expect(seen.first).toMatchObject({ status: 200, projects: PROJECTS });
    expect(seen.first.encoding).toMatch(/^(br|gzip)$/);
    expect(seen.first.etag).toMatch(/^"[\w-]+-(br|gzip)"$/);
    // The browser's revalidation: 304 on the wire, the whole list in the page.
    expect(await statusLogged(ids[1] as string)).toBe(304);
    expect(seen.again).toMatchObject({ status: 200, projects: PROJECTS, etag: seen.first.etag });
    expect(await statusLogged(ids[2] as string)).toBe(304);
    expect(seen.tagged).toMatchObject({ status: 304, projects: 0, etag: seen.first.etag });
    expect(await statusLogged(ids[0] as string)).toBe(200);
    expect(watch.requestsOutside(server.baseUrl)).toEqual([]);
    await context.close();
  }, 120_000);
});
