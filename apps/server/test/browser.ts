/// <reference lib="dom" />
// Functions passed to page.evaluate run in the browser: they use the DOM.
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, ConsoleMessage, Page } from "playwright-core";
import sirv from "sirv";

/** Debian's Chromium; CI installs it (`.ci/run`), and without it the browser tests are skipped. */
export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
/**
 * Whether the browser tests skip themselves: only when Chromium is missing and the run does not
 * require it. `.ci/run` sets FOLIO_REQUIRE_TOOLS=1, so that there a missing Chromium fails the
 * browser tests (at launch) instead of leaving CI green without them.
 */
export const skipBrowserTests = !hasChromium && process.env.FOLIO_REQUIRE_TOOLS !== "1";
/** Added to the title of a browser test that skips itself. */
export const browserTestsSkipped = skipBrowserTests ? ` (skipped: ${CHROMIUM} is not installed)` : "";

/** Where the browser tests leave their screenshots (kept with the test results, never committed). */
export const SCREENSHOTS = fileURLToPath(new URL("../.vitest/screenshots/", import.meta.url));

/** Headless Chromium without anything that talks to the internet on its own. */
export async function launchChromium(): Promise<Browser> {
  if (!hasChromium) {
    throw new Error(
      `${CHROMIUM} is not installed, and this run requires it (FOLIO_REQUIRE_TOOLS=1, as in CI)`,
    );
  }
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A static file server on its own loopback port: the web app hosted on another origin than the API. */
export interface StaticSite {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `dir` as a plain static host would: files, and index.html for every other path. */
export async function serveStatic(dir: string): Promise<StaticSite> {
  const serve = sirv(dir, { single: true, etag: true });
  const server = http.createServer((req, res) => serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What a page did that a user would not want: errors in its console, requests to other origins. */
export interface PageWatch {
  readonly consoleErrors: string[];
  readonly requests: string[];
  /** Requests to any origin but the given ones. */
  requestsOutside(...origins: string[]): string[];
}

/** Records console errors, uncaught exceptions and requests of `page` from now on. */
export function watchPage(page: Page): PageWatch {
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  page.on("console", (message: ConsoleMessage) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`));
  page.on("request", (request) => requests.push(request.url()));
  return {
    consoleErrors,
    requests,
    requestsOutside: (...origins) =>
      requests.filter((url) => !url.startsWith("data:") && !origins.includes(new URL(url).origin)),
  };
}

/**
 * The console lines Chromium itself writes for an HTTP error status (the Connect protocol answers
 * a refused call with 4xx): the app's deliberate calls, not failures of the page.
 */
export function unexpectedConsoleErrors(errors: readonly string[], expectedStatuses: readonly number[] = []) {
  return errors.filter(
    (text) =>
      !expectedStatuses.some((status) =>
        text.startsWith(`Failed to load resource: the server responded with a status of ${status} `),
      ),
  );
}

/** An accessibility problem axe-core rates serious or critical. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: string[];
}

let axeSource: Promise<string> | undefined;

/**
 * Runs axe-core (WCAG 2.1 A/AA and best practices) in the page and returns its serious and
 * critical violations. The script is evaluated through the DevTools protocol, so the page's
 * Content-Security-Policy (no inline scripts) stays on.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFile(
    join(dirname(createRequire(import.meta.url).resolve("axe-core")), "axe.min.js"),
    "utf8",
  );
  await page.evaluate(await axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import("axe-core") }).axe;
    const results = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? "",
        help: v.help,
        targets: v.nodes.map((node) => node.target.join(" ")),
      }));
  });
}

/** Saves a full-page screenshot as `<name>.png` among the test artifacts; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
