/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser: they use the DOM.
import { randomUUID } from "node:crypto";
import type { Browser, Dialog, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { DEMO_ORG_ID, DEMO_USER_ID } from "../src/demo.js";
import { findWebAppDir } from "../src/endpoints/web-app.js";
import { browserTestsSkipped, launchChromium, screenshot, skipBrowserTests, watchPage } from "./browser.js";
import { startTestServer, type TestServer } from "./harness.js";

/** How long a step may take on a busy machine. */
const STEP_MS = 30_000;
const SCOPES = ["files:upload", "project:read"];
/** Someone else's organisation, whose token a link could carry. */
const OTHER_ORG = randomUUID();

/** The organisation as the header's badge shows it. */
const badgeText = (orgId: string) => `org ${orgId.slice(0, 8)}…${orgId.slice(-4)}`;

describe.skipIf(skipBrowserTests)(
  `the web app's #token= link in headless Chromium${browserTestsSkipped}`,
  () => {
    let browser: Browser;
    let server: TestServer;
    let demoToken: string;
    let otherToken: string;

    beforeAll(async () => {
      if (findWebAppDir() === undefined) throw new Error("the web app is not built: run pnpm build");
      // Development mode, as `npm start` runs it: the server signs its own tokens and prints a link.
      server = await startTestServer({ AUTH_JWKS_FILE: "", AUTH_ISSUER: "", AUTH_AUDIENCE: "" });
      const issuer = server.app.developmentIssuer;
      if (issuer === undefined) throw new Error("the server is not in development mode");
      demoToken = await issuer.mint({ orgId: DEMO_ORG_ID, userId: DEMO_USER_ID, scopes: SCOPES });
      otherToken = await issuer.mint({ orgId: OTHER_ORG, userId: randomUUID(), scopes: SCOPES });
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

    const badge = (page: Page, orgId: string) =>
      page.getByRole("banner").getByRole("link", { name: new RegExp(badgeText(orgId)) });
    const storedToken = (page: Page) =>
      page.evaluate(() => JSON.parse(sessionStorage.getItem("folio.connection") ?? "{}").token as string);
    const listStatus = (page: Page, text: string) =>
      page
        .getByRole("status")
        .filter({ hasText: new RegExp(`^${text}$`) })
        .waitFor();

    it("asks before a link replaces the tab's token: dismissed keeps the organisation, accepted switches; the header names it", async () => {
      const page = await newPage();
      const watch = watchPage(page);
      const questions: string[] = [];
      let answer: "accept" | "dismiss" = "dismiss";
      page.on("dialog", (dialog: Dialog) => {
        questions.push(dialog.message());
        void (answer === "accept" ? dialog.accept() : dialog.dismiss());
      });

      // A tab without a token takes the link's as it is, and the header says whose it is.
      await page.goto(`${server.baseUrl}/#token=${demoToken}`);
      await listStatus(page, "3 projects");
      await badge(page, DEMO_ORG_ID).waitFor();
      expect(await badge(page, DEMO_ORG_ID).getAttribute("title")).toBe(
        `Signed in to organisation ${DEMO_ORG_ID}`,
      );
      expect(questions).toEqual([]);
      expect(page.url()).toBe(`${server.baseUrl}/`);

      // Another organisation's link in the same tab: the user is asked, names both, says no.
      await page.goto(`${server.baseUrl}/connection#token=${otherToken}`);
      await page.getByRole("heading", { level: 1, name: "Connection" }).waitFor();
      await expect.poll(() => questions.length).toBe(1);
      expect(questions[0]).toContain(`signs this tab in to organisation ${OTHER_ORG}`);
      expect(questions[0]).toContain(`signed in to organisation ${DEMO_ORG_ID} now`);
      await badge(page, DEMO_ORG_ID).waitFor();
      expect(await storedToken(page)).toBe(demoToken);
      expect(page.url()).toBe(`${server.baseUrl}/connection`);
      await page.getByText(DEMO_ORG_ID).waitFor();
      await screenshot(page, "token-link-dismissed");

      // The same link again, this time only its fragment changing (no page load), and accepted.
      answer = "accept";
      await page.goto(`${server.baseUrl}/connection#token=${otherToken}`);
      await badge(page, OTHER_ORG).waitFor();
      expect(questions).toHaveLength(2);
      expect(await storedToken(page)).toBe(otherToken);
      expect(page.url()).toBe(`${server.baseUrl}/connection`);
      // The open Connection page shows the new token too, and the projects are the other organisation's.
      await page.getByText(OTHER_ORG).waitFor();
      await screenshot(page, "token-link-accepted");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Projects" }).click();
      await listStatus(page, "0 projects");

      expect(watch.consoleErrors).toEqual([]);
      await page.context().close();
    }, 120_000);
  },
);
