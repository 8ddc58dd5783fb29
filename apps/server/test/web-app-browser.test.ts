/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser: they use the DOM.
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { DEMO_ORG_ID, DEMO_USER_ID, seedDemoProjects } from "../src/demo.js";
import { findWebAppDir } from "../src/endpoints/web-app.js";
import {
  browserTestsSkipped,
  launchChromium,
  type StaticSite,
  screenshot,
  seriousAxeViolations,
  serveStatic,
  skipBrowserTests,
  unexpectedConsoleErrors,
  watchPage,
} from "./browser.js";
import { startTestServer, type TestServer } from "./harness.js";

/** How long a step may take on a busy machine (the app waits for the server, the server for its database). */
const STEP_MS = 30_000;
const ORG = randomUUID();
const PROJECTS = Array.from({ length: 30 }, (_, i) => `Project ${String(i + 1).padStart(2, "0")}`);
/** Every fifth project is in Lyon: a filter that leaves 6. */
const LYON = PROJECTS.filter((_, i) => (i + 1) % 5 === 0);

describe.skipIf(skipBrowserTests)(`the web app in headless Chromium${browserTestsSkipped}`, () => {
  let browser: Browser;
  let server: TestServer;
  /** The app on an origin the server allows, and on one it does not. */
  let allowedSite: StaticSite;
  let refusedSite: StaticSite;
  let fullToken: string;
  let readOnlyToken: string;

  beforeAll(async () => {
    const dist = findWebAppDir();
    if (dist === undefined) throw new Error("the web app is not built: run pnpm build");
    [allowedSite, refusedSite] = await Promise.all([serveStatic(dist), serveStatic(dist)]);
    server = await startTestServer({ CORS_ALLOWED_ORIGINS: allowedSite.origin });
    // What development mode seeds into an empty database (so, before the other projects).
    await seedDemoProjects(server.app.db, pino({ level: "silent" }));
    await server.sql(
      `INSERT INTO projects (org_id, name, street, house_number, postal_code, city, country)
       SELECT $1::uuid, name, 'Main Street', (ord * 2)::text, lpad((10000 + ord)::text, 5, '0'),
              CASE WHEN ord % 5 = 0 THEN 'Lyon' ELSE 'Berlin' END,
              CASE WHEN ord % 5 = 0 THEN 'FR' ELSE 'DE' END
       FROM unnest($2::text[]) WITH ORDINALITY AS t(name, ord)`,
      [ORG, PROJECTS],
    );
    const user = randomUUID();
    fullToken = await server.issuer.sign(
      { org_id: ORG, sub: user, scope: "project:read files:upload" },
      {},
      "1h",
    );
    readOnlyToken = await server.issuer.sign({ org_id: ORG, sub: user, scope: "project:read" }, {}, "1h");
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await allowedSite?.close();
    await refusedSite?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    // What the page showed when a test failed, among the artifacts.
    onTestFailed(async ({ task }) => {
      if (!page.isClosed()) await screenshot(page, `failed-${task.name.replace(/\W+/g, "-").slice(0, 60)}`);
    });
    return page;
  }

  /** Fills in the Connection view as a person would, and saves (which opens the projects). */
  async function connect(
    page: Page,
    options: { token: string; protocol: "Connect" | "gRPC-Web"; apiUrl?: string },
  ) {
    await nav(page, "Connection").click();
    await page.getByRole("heading", { level: 1, name: "Connection" }).waitFor();
    await page.getByLabel("Access token").fill(options.token);
    await page.getByRole("radio", { name: new RegExp(`^${options.protocol}`) }).check();
    await page.getByLabel("API address").fill(options.apiUrl ?? "");
    await page.getByRole("button", { name: "Save and show projects" }).click();
    await page.getByRole("heading", { level: 1, name: "Projects" }).waitFor();
  }

  const nav = (page: Page, name: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name });

  async function expectNoSeriousAxeViolations(page: Page) {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  const projectNames = (page: Page) => page.locator("table.projects tbody th").allTextContents();
  const listStatus = (page: Page, text: string) =>
    page
      .getByRole("status")
      .filter({ hasText: new RegExp(`^${text}$`) })
      .waitFor();

  for (const protocol of ["Connect", "gRPC-Web"] as const) {
    it(`over ${protocol} from another origin: lists the projects page by page, filters, creates a folder, explains a 409 and a 403`, async () => {
      const page = await newPage();
      const watch = watchPage(page);
      await page.goto(`${allowedSite.origin}/`);
      await page.getByRole("heading", { level: 2, name: "Connect to see your projects" }).waitFor();
      await connect(page, { token: fullToken, protocol, apiUrl: server.baseUrl });
      const badge = await page.locator(".badge").textContent();
      expect(badge).toContain(protocol);
      expect(badge).toContain(ORG.slice(0, 8));

      // Pages of 10, two "Load more" clicks, then no more.
      await page.getByLabel("Per page").selectOption("10");
      await listStatus(page, "10 projects, more to load");
      expect(await projectNames(page)).toEqual(PROJECTS.slice(0, 10));
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, `${protocol.toLowerCase()}-projects-first-page`);
      await page.getByRole("button", { name: "Load more" }).click();
      await listStatus(page, "20 projects, more to load");
      await page.getByRole("button", { name: "Load more" }).click();
      await listStatus(page, "30 projects");
      expect(await projectNames(page)).toEqual(PROJECTS);
      expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);

      await page.getByLabel("City").fill("Lyon");
      await listStatus(page, "6 projects");
      expect(await projectNames(page)).toEqual(LYON);
      // Back to the list as it was: the pages loaded before are still there.
      await page.getByRole("button", { name: "Clear filters" }).click();
      await listStatus(page, "30 projects");

      // A folder in the Teal preset colour.
      const name = `Invoices ${protocol}`;
      await nav(page, "New folder").click();
      await page.getByRole("heading", { level: 1, name: "New folder" }).waitFor();
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByRole("radio", { name: "Teal" }).check();
      await page.getByRole("button", { name: "Create folder" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Folder “${name}” created.` })
        .waitFor();
      const [folder] = await server.sql<{ id: string; color: string }>(
        "SELECT id, color FROM folders WHERE org_id = $1 AND name = $2",
        [ORG, name],
      );
      expect(folder?.color).toBe("#0f8b8d");
      await page.getByText(folder?.id as string).waitFor();

      // The same name in other letters: 409, FOLDER_NAME_TAKEN, told next to the name.
      await page.getByLabel("Name", { exact: true }).fill(name.toUpperCase());
      await page.getByRole("button", { name: "Create folder" }).click();
      const nameError = page.locator("#folder-name-error");
      await nameError.waitFor();
      expect(await nameError.textContent()).toContain("A folder with this name already exists");
      expect(await page.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByRole("alert").textContent()).toContain("The name is taken.");
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, `${protocol.toLowerCase()}-folder-name-taken`);

      // A token without files:upload: 403, told in the summary with the scope it lacks.
      await connect(page, { token: readOnlyToken, protocol, apiUrl: server.baseUrl });
      await listStatus(page, "10 projects, more to load");
      await nav(page, "New folder").click();
      await page.getByLabel("Name", { exact: true }).fill("Receipts");
      await page.getByRole("button", { name: "Create folder" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: "Your token does not allow this: it lacks the scope “files:upload”." })
        .waitFor();
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, `${protocol.toLowerCase()}-missing-scope`);
      expect(
        await server.sql("SELECT 1 FROM folders WHERE org_id = $1 AND name = 'Receipts'", [ORG]),
      ).toEqual([]);

      // Only the page's origin and the API were asked for anything; the console stayed clean
      // but for the lines Chromium writes for the deliberate 409 and 403 (Connect's statuses).
      expect(watch.requestsOutside(allowedSite.origin, server.baseUrl)).toEqual([]);
      expect(watch.requests.some((url) => url.startsWith(`${server.baseUrl}/folio.v1.`))).toBe(true);
      expect(unexpectedConsoleErrors(watch.consoleErrors, protocol === "Connect" ? [409, 403] : [])).toEqual(
        [],
      );
      await page.context().close();
    }, 180_000);
  }

  it("a page on an origin the server does not allow cannot call the API: the browser refuses, the app says why", async () => {
    const page = await newPage();
    await page.goto(`${refusedSite.origin}/`);
    await connect(page, { token: fullToken, protocol: "Connect", apiUrl: server.baseUrl });
    await page
      .getByRole("alert")
      .filter({ hasText: `Could not reach the API at ${server.baseUrl}` })
      .waitFor();
    expect(await page.getByRole("alert").textContent()).toContain(
      `allows this page's origin (${refusedSite.origin}) in CORS_ALLOWED_ORIGINS`,
    );
    await screenshot(page, "refused-origin");

    const call = (from: Page) =>
      from.evaluate(
        async ({ url, token }) => {
          try {
            const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
            return `status ${res.status}`;
          } catch (error) {
            return `refused: ${(error as Error).message}`;
          }
        },
        { url: `${server.baseUrl}/api/v1/projects?pageSize=1`, token: fullToken },
      );
    expect(await call(page)).toBe("refused: Failed to fetch");
    // The same call from the allowed origin goes through: the origin decides, nothing else.
    const allowed = await newPage();
    await allowed.goto(`${allowedSite.origin}/`);
    expect(await call(allowed)).toBe("status 200");
    await page.context().close();
    await allowed.context().close();
  }, 120_000);

  it("served by the server at / with #token=, shows the demo projects and takes the token out of the address", async () => {
    const token = await server.issuer.sign(
      { org_id: DEMO_ORG_ID, sub: DEMO_USER_ID, scope: "files:upload project:read" },
      {},
      "1h",
    );
    const page = await newPage();
    const watch = watchPage(page);
    await page.goto(`${server.baseUrl}/#token=${token}`);
    await listStatus(page, "3 projects");
    expect(await projectNames(page)).toEqual([
      "Harbour Office Refit",
      "Riverside Library",
      "Station Square Housing",
    ]);
    expect(page.url()).toBe(`${server.baseUrl}/`);
    expect(await page.evaluate(() => sessionStorage.getItem("folio.connection"))).toContain(token);
    expect(await page.evaluate(() => document.title)).toBe("Projects · Folio");
    await expectNoSeriousAxeViolations(page);
    await screenshot(page, "served-at-root");

    // The app's own routes load from the server too (a reload, a shared link), with the token kept.
    await page.goto(`${server.baseUrl}/connection`);
    await page.getByRole("heading", { level: 1, name: "Connection" }).waitFor();
    await page.getByText(DEMO_ORG_ID).waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshot(page, "connection");
    await page.goto(`${server.baseUrl}/folders/new`);
    await page.getByRole("heading", { level: 1, name: "New folder" }).waitFor();

    // Keyboard only: the skip link, then every control in order, the focus always visible.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("folder-name");
    await page.keyboard.type("Keyboard folder");
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    );
    expect(outline).toBe("solid");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Folder “Keyboard folder” created." }).waitFor();

    expect(watch.requestsOutside(server.baseUrl)).toEqual([]);
    expect(watch.requests).toContain(`${server.baseUrl}/favicon.svg`);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("tells how long to wait when the rate limit is reached (Retry-After, read across origins)", async () => {
    const limited = await startTestServer({
      CORS_ALLOWED_ORIGINS: allowedSite.origin,
      RATE_LIMIT_TOKEN_REQUESTS: "2",
      RATE_LIMIT_ORG_REQUESTS: "1000",
    });
    try {
      const page = await newPage();
      await page.goto(`${allowedSite.origin}/folders/new`);
      // Saving opens the projects: one call. One folder: the second. The next one is refused.
      const token = await limited.issuer.sign({ org_id: ORG, scope: "project:read files:upload" }, {}, "1h");
      await connect(page, { token, protocol: "Connect", apiUrl: limited.baseUrl });
      await listStatus(page, "0 projects");
      await nav(page, "New folder").click();
      await page.getByLabel("Name", { exact: true }).fill("First");
      await page.getByRole("button", { name: "Create folder" }).click();
      await page.getByRole("status").filter({ hasText: "Folder “First” created." }).waitFor();
      await page.getByLabel("Name", { exact: true }).fill("Second");
      await page.getByRole("button", { name: "Create folder" }).click();
      const alert = page.getByRole("alert").filter({ hasText: "Too many requests" });
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/the rate limit is reached\. Try again in \d+ seconds?\./);
      expect(await page.getByRole("button", { name: /^Try again in \d+ s$/ }).isDisabled()).toBe(true);
      await screenshot(page, "rate-limited");
      await page.context().close();
    } finally {
      await limited.close();
    }
  }, 120_000);
});
