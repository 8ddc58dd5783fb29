/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser: they use the DOM.
// The web app's folders in headless Chromium, served by the server at /: browsing down and back
// up, creating inside a folder, a deep link, and what goes over the wire (reads as Connect GETs).
import { randomUUID } from "node:crypto";
import { createFolioClient } from "@folio/client";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { findWebAppDir } from "../src/endpoints/web-app.js";
import {
  browserTestsSkipped,
  launchChromium,
  screenshot,
  seriousAxeViolations,
  skipBrowserTests,
  unexpectedConsoleErrors,
  watchPage,
} from "./browser.js";
import { startTestServer, type TestServer } from "./harness.js";

/** How long a step may take on a busy machine (the app waits for the server, the server for its database). */
const STEP_MS = 30_000;
const ORG = randomUUID();
const OTHER_ORG = randomUUID();
/** More top-level folders than the app's page of 25: the second page needs "Load more". */
const TOP_LEVEL = [
  "Archive",
  "Clients",
  ...Array.from({ length: 28 }, (_, i) => `Top ${String(i + 1).padStart(2, "0")}`),
];
const EVERY_SCOPE = "project:read files:read files:upload";

describe.skipIf(skipBrowserTests)(`the web app's folders in headless Chromium${browserTestsSkipped}`, () => {
  let browser: Browser;
  let server: TestServer;
  let token: string;
  /** Folder ids by name: Clients > Acme > Invoices 2026 > Q1, Clients > Globex. */
  const ids = new Map<string, string>();
  const id = (name: string) => {
    const found = ids.get(name);
    if (found === undefined) throw new Error(`no folder ${name}`);
    return found;
  };
  let elsewhere: string;
  const log: Record<string, unknown>[] = [];

  beforeAll(async () => {
    if (findWebAppDir() === undefined) throw new Error("the web app is not built: run pnpm build");
    server = await startTestServer({}, { log: (line) => log.push(line) });
    token = await server.issuer.sign({ org_id: ORG, sub: randomUUID(), scope: EVERY_SCOPE }, {}, "1h");
    const folio = createFolioClient({ baseUrl: server.baseUrl, token });
    const create = async (name: string, parent?: string) => {
      const folder = await folio.createFolder({
        name,
        ...(parent === undefined ? {} : { parentId: id(parent) }),
      });
      ids.set(name, folder.id);
    };
    for (const name of TOP_LEVEL) await create(name);
    await create("Acme", "Clients");
    await create("Globex", "Clients");
    await create("Invoices 2026", "Acme");
    await create("Q1", "Invoices 2026");
    const other = createFolioClient({
      baseUrl: server.baseUrl,
      token: await server.issuer.sign({ org_id: OTHER_ORG, sub: randomUUID(), scope: EVERY_SCOPE }, {}, "1h"),
    });
    elsewhere = (await other.createFolder({ name: "Elsewhere" })).id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    onTestFailed(async ({ task }) => {
      if (!page.isClosed()) await screenshot(page, `failed-${task.name.replace(/\W+/g, "-").slice(0, 60)}`);
    });
    return page;
  }

  /** Opens `path` of the app from a `#token=` link: the tab keeps the token for later loads. */
  const open = (page: Page, path: string, signedInWith = token) =>
    page.goto(`${server.baseUrl}${path}#token=${signedInWith}`);
  const heading = (page: Page, name: string) =>
    page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
  const crumbs = (page: Page) => page.getByRole("navigation", { name: "Breadcrumb" });
  const crumbTexts = (page: Page) => crumbs(page).getByRole("listitem").allTextContents();
  const listing = (page: Page) =>
    page.getByRole("region", { name: /^(Top-level folders|Folders in this folder)$/ });
  const listed = (page: Page) => listing(page).getByRole("link").allTextContents();
  const status = (page: Page, text: string) =>
    listing(page)
      .getByRole("status")
      .filter({ hasText: new RegExp(`^${text}$`) })
      .waitFor();
  const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: STEP_MS });

  it("browses the folders: the top level page by page, into a folder (its folders and details), creates in it, and back up by the breadcrumbs", async () => {
    const page = await newPage();
    const watch = watchPage(page);
    await open(page, "/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Folders" }).click();
    await heading(page, "Folders");
    expect(await crumbTexts(page)).toEqual(["Folders"]);
    await status(page, "25 folders, more to load");
    expect(await listed(page)).toEqual(TOP_LEVEL.slice(0, 25));
    await listing(page).getByRole("button", { name: "Load more" }).click();
    await status(page, "30 folders");
    expect(await listed(page)).toEqual(TOP_LEVEL);

    // Into Clients: its folders, its details, and the way back in the breadcrumbs.
    await listing(page).getByRole("link", { name: "Clients", exact: true }).click();
    await heading(page, "Clients");
    expect(page.url()).toBe(`${server.baseUrl}/folders/${id("Clients")}`);
    // The focus moves to the new page's heading, as a page load would put it.
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Clients");
    await status(page, "2 folders");
    expect(await listed(page)).toEqual(["Acme", "Globex"]);
    await page.getByRole("region", { name: "Details" }).getByText(id("Clients")).waitFor();
    expect(await crumbTexts(page)).toEqual(["Folders", "Clients"]);
    expect(await crumbs(page).getByRole("link").allTextContents()).toEqual(["Folders"]);

    // A folder created here is Clients' and appears in the list, in name order.
    await page.getByLabel("Folder name").fill("Contracts");
    await page.getByRole("button", { name: "Create folder" }).click();
    await page.getByRole("status").filter({ hasText: "Folder “Contracts” created." }).waitFor();
    await status(page, "3 folders");
    expect(await listed(page)).toEqual(["Acme", "Contracts", "Globex"]);
    const [contracts] = await server.sql<{ parent_id: string }>(
      "SELECT parent_id FROM folders WHERE org_id = $1 AND name = 'Contracts'",
      [ORG],
    );
    expect(contracts?.parent_id).toBe(id("Clients"));
    expect(await page.getByLabel("Folder name").inputValue()).toBe("");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "folders-in-a-folder");

    // Two levels down, then up by the breadcrumbs: to Clients, then to the top.
    await listing(page).getByRole("link", { name: "Acme", exact: true }).click();
    await heading(page, "Acme");
    await listing(page).getByRole("link", { name: "Invoices 2026", exact: true }).click();
    await heading(page, "Invoices 2026");
    await status(page, "1 folder");
    await poll(() => crumbTexts(page)).toEqual(["Folders", "Clients", "Acme", "Invoices 2026"]);
    await crumbs(page).getByRole("link", { name: "Clients", exact: true }).click();
    await heading(page, "Clients");
    await status(page, "3 folders");
    await crumbs(page).getByRole("link", { name: "Folders", exact: true }).click();
    await heading(page, "Folders");
    expect(page.url()).toBe(`${server.baseUrl}/folders`);
    await status(page, "30 folders");

    // The browser's back button walks the same way down again.
    await page.goBack();
    await heading(page, "Clients");
    expect(watch.requestsOutside(server.baseUrl)).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 180_000);

  it("a deep link opens the folder with the whole path to it, on a reload too; another organisation's folder is not found", async () => {
    const page = await newPage();
    const watch = watchPage(page);
    await open(page, `/folders/${id("Q1")}`);
    await heading(page, "Q1");
    expect(page.url()).toBe(`${server.baseUrl}/folders/${id("Q1")}`);
    // Nothing of the path was seen before: each folder's parent comes from GetFolder.
    await poll(() => crumbTexts(page)).toEqual(["Folders", "Clients", "Acme", "Invoices 2026", "Q1"]);
    await status(page, "0 folders");
    await page.getByText("This folder holds no folders.").waitFor();
    expect(await page.evaluate(() => document.title)).toBe("Folders · Folio");

    await page.reload();
    await heading(page, "Q1");
    await poll(() => crumbTexts(page)).toEqual(["Folders", "Clients", "Acme", "Invoices 2026", "Q1"]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "folder-deep-link");
    await crumbs(page).getByRole("link", { name: "Acme", exact: true }).click();
    await heading(page, "Acme");
    await status(page, "1 folder");
    expect(await listed(page)).toEqual(["Invoices 2026"]);

    // Another organisation's folder is told as the server tells it: not found, as one that does not exist.
    for (const id of [elsewhere, randomUUID()]) {
      await page.goto(`${server.baseUrl}/folders/${id}`);
      await page.getByRole("alert").filter({ hasText: "Folder not found." }).waitFor();
      expect(await page.getByRole("region", { name: "Details" }).count()).toBe(0);
      expect(await page.getByText("Elsewhere").count()).toBe(0);
    }
    await page.getByRole("link", { name: "top-level folders" }).click();
    await heading(page, "Folders");
    await status(page, "25 folders, more to load");
    // Chromium's console line for each deliberate 404 (Connect's status for not_found).
    expect(unexpectedConsoleErrors(watch.consoleErrors, [404])).toEqual([]);
    await page.context().close();

    // A token without files:read: the scope it lacks is named.
    const projectsOnly = await server.issuer.sign(
      { org_id: ORG, sub: randomUUID(), scope: "project:read" },
      {},
      "1h",
    );
    const limited = await newPage();
    await open(limited, "/folders", projectsOnly);
    await limited
      .getByRole("alert")
      .filter({ hasText: "Your token does not allow this: it lacks the scope “files:read”." })
      .waitFor();
    await limited.context().close();
  }, 180_000);

  it("reads over Connect GET (ListProjects, ListFolders, GetFolder), revalidated from the browser's cache, and creates over POST", async () => {
    const page = await newPage();
    const calls: Request[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.startsWith("/folio.v1.")) calls.push(request);
    });
    await open(page, "/");
    await page
      .getByRole("status")
      .filter({ hasText: /^\d+ projects?$/ })
      .waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Folders" }).click();
    await status(page, "25 folders, more to load");
    await listing(page).getByRole("link", { name: "Clients", exact: true }).click();
    await heading(page, "Clients");
    await page.getByRole("region", { name: "Details" }).waitFor();
    await listing(page).getByRole("link").first().waitFor();
    await page.getByLabel("Folder name").fill("Drafts");
    await page.getByRole("button", { name: "Create folder" }).click();
    await page.getByRole("status").filter({ hasText: "Folder “Drafts” created." }).waitFor();
    await listing(page).getByRole("link", { name: "Drafts", exact: true }).waitFor();

    const sent = calls.map((request) => ({ method: request.method(), url: request.url() }));
    const rpc = (url: string) => new URL(url).pathname.slice(1);
    const reads = sent.filter(({ url }) => !rpc(url).endsWith("/CreateFolder"));
    expect(new Set(reads.map(({ url }) => rpc(url)))).toEqual(
      new Set([
        "folio.v1.ProjectService/ListProjects",
        "folio.v1.FolderService/ListFolders",
        "folio.v1.FolderService/GetFolder",
      ]),
    );
    for (const { method, url } of reads) {
      expect(method, url).toBe("GET");
      expect(url).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/folio\.v1\.\w+Service\/\w+\?connect=v1&encoding=json&message=[^&]+$/,
      );
    }
    // The request is the message, as JSON, in the address: GetFolder asks for Clients.
    const getFolder = reads.find(({ url }) => rpc(url) === "folio.v1.FolderService/GetFolder");
    expect(JSON.parse(new URL(getFolder?.url as string).searchParams.get("message") as string)).toEqual({
      id: id("Clients"),
    });
    expect(sent.filter(({ url }) => rpc(url) === "folio.v1.FolderService/CreateFolder")).toEqual([
      { method: "POST", url: `${server.baseUrl}/folio.v1.FolderService/CreateFolder` },
    ]);

    // A read's answer may be kept by the browser, never by a shared cache, and is revalidated.
    const answer = await (
      calls.find((request) => rpc(request.url()) === "folio.v1.FolderService/GetFolder") as Request
    ).response();
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()["cache-control"]).toBe("private, no-cache");
    expect(answer?.headers().etag).toMatch(/^"/);
    // A reload asks again with the kept answer's ETag: the server answers 304, the page shows the folder.
    const before = log.length;
    await page.reload();
    await heading(page, "Clients");
    await page.getByRole("region", { name: "Details" }).getByText(id("Clients")).waitFor();
    await poll(() =>
      log
        .slice(before)
        .some(
          (line) =>
            line.path === "/folio.v1.FolderService/GetFolder" &&
            line.httpMethod === "GET" &&
            line.status === 304,
        ),
    ).toBe(true);
    await page.context().close();
  }, 180_000);
});
