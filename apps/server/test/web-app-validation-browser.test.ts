/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser: they use the DOM.
/**
 * The web app checks its forms with the proto's `buf.validate` rules before it sends (protovalidate
 * in the browser), telling each broken rule next to its field without a request; with the check
 * turned off, the server's refusal is told in the same place.
 */
import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
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

/** How long a step may take on a busy machine. */
const STEP_MS = 30_000;
const ORG = randomUUID();
const CREATE_FOLDER = "/folio.v1.FolderService/CreateFolder";

describe.skipIf(skipBrowserTests)(
  `the web app's form checks in headless Chromium${browserTestsSkipped}`,
  () => {
    let browser: Browser;
    let server: TestServer;
    let token: string;

    beforeAll(async () => {
      if (findWebAppDir() === undefined) throw new Error("the web app is not built: run pnpm build");
      server = await startTestServer();
      token = await server.issuer.sign(
        { org_id: ORG, sub: randomUUID(), scope: "project:read files:upload" },
        {},
        "1h",
      );
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    /** The New folder view, connected, with the requests to CreateFolder counted. */
    async function newFolderPage(): Promise<{ page: Page; createFolderCalls: () => number }> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_MS);
      onTestFailed(async ({ task }) => {
        if (!page.isClosed()) await screenshot(page, `failed-${task.name.replace(/\W+/g, "-").slice(0, 60)}`);
      });
      let calls = 0;
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === CREATE_FOLDER) calls++;
      });
      await page.goto(`${server.baseUrl}/#token=${token}`);
      await page.getByRole("heading", { level: 1, name: "Projects" }).waitFor();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "New folder" }).click();
      await page.getByRole("heading", { level: 1, name: "New folder" }).waitFor();
      return { page, createFolderCalls: () => calls };
    }

    async function fillInvalidColour(page: Page, name: string) {
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByRole("radio", { name: "Custom" }).check();
      await page.getByLabel("Hex code").fill("red");
      await page.getByRole("button", { name: "Create folder" }).click();
    }

    const colourError = (page: Page) => page.locator("#folder-colour-error");

    it("refuses an invalid colour without sending a request, and a name the CEL rules refuse", async () => {
      const { page, createFolderCalls } = await newFolderPage();
      const watch = watchPage(page);
      await fillInvalidColour(page, "Brand");
      await colourError(page).filter({ hasText: "Colour must be #rgb or #rrggbb." }).waitFor();
      expect(await page.getByLabel("Hex code").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByRole("alert").textContent()).toContain("One field needs a change.");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, "form-check-colour");

      // A CEL rule of the name, run in the browser: its message, next to the name.
      await page.getByRole("radio", { name: "Teal" }).check();
      await page.getByLabel("Name", { exact: true }).fill("a/b");
      await page.getByRole("button", { name: "Create folder" }).click();
      await page
        .locator("#folder-name-error")
        .filter({ hasText: 'Name must not contain "/" or "\\".' })
        .waitFor();
      expect(await colourError(page).count()).toBe(0);
      expect(createFolderCalls()).toBe(0);

      // Fixed, it is sent, once, and created.
      await page.getByLabel("Name", { exact: true }).fill("Brand");
      await page.getByRole("button", { name: "Create folder" }).click();
      await page.getByRole("status").filter({ hasText: "Folder “Brand” created." }).waitFor();
      expect(createFolderCalls()).toBe(1);
      expect(watch.consoleErrors).toEqual([]);
      await page.context().close();
    }, 120_000);

    it("with the browser's check turned off, shows the server's invalid_argument next to the field", async () => {
      const { page, createFolderCalls } = await newFolderPage();
      const watch = watchPage(page);
      await page.evaluate(() => sessionStorage.setItem("folio.skipFormChecks", "1"));
      const refused = page.waitForResponse((response) => new URL(response.url()).pathname === CREATE_FOLDER);
      await fillInvalidColour(page, "Unchecked");
      expect((await refused).status()).toBe(400);
      await colourError(page).filter({ hasText: "Colour must be #rgb or #rrggbb." }).waitFor();
      expect(await page.getByRole("alert").textContent()).toContain("One field needs a change.");
      expect(createFolderCalls()).toBe(1);
      await screenshot(page, "form-check-skipped-server-refusal");
      expect(
        await server.sql("SELECT 1 FROM folders WHERE org_id = $1 AND name = 'Unchecked'", [ORG]),
      ).toEqual([]);
      // Chromium's own line for the 400 of the Connect protocol, nothing else.
      expect(unexpectedConsoleErrors(watch.consoleErrors, [400])).toEqual([]);
      await page.context().close();
    }, 120_000);
  },
);
