// The README's commands, run as a developer or a container runtime runs them: `npm start`, stopped
// by a signal sent to npm alone, and `npm run token -- ...`. @folio/server is a devDependency of
// this package so that turbo builds it before these tests: the build inside `npm start` then finds
// it cached instead of racing the outer build. The web app's URL that `npm start` prints is opened
// in headless Chromium, launched as the server's browser tests launch it (skipped without Chromium,
// except where FOLIO_REQUIRE_TOOLS=1 requires it, as in CI).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserTestsSkipped,
  launchChromium,
  skipBrowserTests,
  unexpectedConsoleErrors,
  watchPage,
} from "../../../apps/server/test/browser.js";
import { commandLine, descendants, isAlive } from "./processes.js";

const repository = fileURLToPath(new URL("../../..", import.meta.url));
const SERVER_ENTRY = "apps/server/dist/main.js";
const DEMO_USER_ID = "00000000-0000-4000-8000-0000000000a1";
const DEMO_ORG_ID = "00000000-0000-4000-8000-00000000f011";
/** What the server seeds for the demo org on a new database, as the web app lists them. */
const DEMO_PROJECTS = ["Harbour Office Refit", "Riverside Library", "Station Square Housing"];
/** Where this package's tests leave their screenshots (ignored by git, as every `.vitest/`). */
const SCREENSHOTS = fileURLToPath(new URL("../.vitest/screenshots/", import.meta.url));

/** A developer's shell: none of the settings of the test run, nor of the package managers running it. */
function shellEnvironment(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|turbo_|vitest)/i.test(name)) continue;
    if (/^(DATABASE_URL|REDIS_URL|AUTH_.*|NODE_ENV|PORT|HOST|LOG_LEVEL)$/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, PORT: "0", DATA_DIR: dataDir, ...extra };
}

/** `npm start` running: its output so far, how it ended (once it has), the server's address. */
interface NpmStart {
  readonly npm: ChildProcess;
  readonly output: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the server's URL once it listens; rejects if npm ends first. */
  readonly listening: Promise<string>;
}

function npmStart(env: NodeJS.ProcessEnv): NpmStart {
  const npm = spawn("npm", ["start"], { cwd: repository, env, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.on("close", (code, signal) => resolve({ code, signal })),
  );
  const listening = new Promise<string>((resolve, reject) => {
    for (const stream of [npm.stdout, npm.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        if (!line.startsWith("{")) return;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url !== undefined) resolve(entry.url);
      });
    }
    void exited.then(({ code, signal }) =>
      reject(new Error(`npm start ended (${code ?? signal}) before listening:\n${output.join("\n")}`)),
    );
  });
  return { npm, output, exited, listening };
}

/** The first line of `output` (so far, or within `timeoutMs`) that `pattern` matches, as matched. */
async function lineMatching(output: readonly string[], pattern: RegExp, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of output) {
      const match = pattern.exec(line);
      if (match !== null) return match;
    }
    if (Date.now() > deadline) {
      throw new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${output.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The claims of a JWT (not verified: the server checks it when the app calls the API). */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
}

/** The pids `npm start` runs under it, and the server's among them. */
function processTree(npm: ChildProcess): { all: number[]; server: number } {
  const all = descendants(npm.pid as number);
  const server = all.find((pid) => commandLine(pid).includes(SERVER_ENTRY));
  if (server === undefined) {
    throw new Error(`no ${SERVER_ENTRY} under npm start: ${all.map(commandLine).join("; ")}`);
  }
  return { all, server };
}

let dataDir: string;
/** A configuration directory no tool has used yet, as on a new machine (turbo keeps its own there). */
let freshConfigDir: string;
/** Processes to end if a test fails before stopping what it started. */
const started: number[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "folio-npm-start-"));
  freshConfigDir = await mkdtemp(join(tmpdir(), "folio-npm-start-config-"));
});

afterAll(async () => {
  for (const pid of started.filter(isAlive)) process.kill(pid, "SIGKILL");
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  await rm(freshConfigDir, { recursive: true, force: true, maxRetries: 5 });
});

describe("npm start", () => {
  let run: NpmStart;
  let url: string;
  let tree: { all: number[]; server: number };

  beforeAll(async () => {
    run = npmStart(shellEnvironment(dataDir, { XDG_CONFIG_HOME: freshConfigDir }));
    started.push(run.npm.pid as number);
    url = await run.listening;
    tree = processTree(run.npm);
    started.push(...tree.all);
  });

  it("runs the server itself under npm, not through further package-manager processes", () => {
    const commands = tree.all.map(commandLine);
    // npm -> node run.mjs (-> Node 24's run.mjs on an older machine Node) -> node main.js
    expect(commands.filter((command) => /\b(pnpm|turbo|sh -c)\b/.test(command))).toEqual([]);
    expect(
      commands.filter((command) => command.includes("tooling/toolchain/run.mjs")).length,
    ).toBeGreaterThan(0);
  });

  it("prints no Turborepo telemetry notice on its first run on a machine", () => {
    // turbo prints its notice once per configuration directory, on its first run there.
    expect(run.output.filter((line) => /telemetry/i.test(line))).toEqual([]);
  });

  it("prints, with the README's token command, a token the server accepts for that org and scope", async () => {
    const readme = await readFile(join(repository, "README.md"), "utf8");
    const command = /^npm run token -- --org (\S+) --scope project:read$/m.exec(readme);
    expect(command, "the README's `npm run token -- --org ... --scope project:read` line").not.toBeNull();
    const [line = "", org = ""] = command ?? [];
    const [executable = "", ...args] = line.split(" ");
    const { stdout } = await promisify(execFile)(executable, args, {
      cwd: repository,
      env: shellEnvironment(dataDir),
    });
    const token = stdout.trim().split("\n").at(-1) ?? "";
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
    expect(claims).toMatchObject({ org_id: org, sub: DEMO_USER_ID, scope: "project:read" });

    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const projects = await fetch(`${url}/api/v1/projects`, { headers });
    // A new org: accepted, and none of the demo org's projects.
    expect(projects.status).toBe(200);
    expect(await projects.json()).toEqual({ projects: [] });
    const create = await fetch(`${url}/api/v1/folders`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Contracts" }),
    });
    expect(create.status).toBe(403);
  });

  it("shows the README's token command in the command's own usage text", async () => {
    const readme = await readFile(join(repository, "README.md"), "utf8");
    const line = /^npm run token -- .*$/m.exec(readme)?.[0];
    const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "token", "--", "--help"], {
      cwd: repository,
      env: shellEnvironment(dataDir),
    });
    expect(stdout).toMatch(/^usage: npm run token -- /);
    expect(stdout).toContain(`e.g. ${line}\n`);
  });

  it.skipIf(skipBrowserTests)(
    `prints the web app's URL with a token, which opened in headless Chromium shows the demo projects${browserTestsSkipped}`,
    async () => {
      // The banner's line, as a newcomer copies it: `  http://127.0.0.1:<port>/#token=<JWT>`.
      const [printed = "", token = ""] = await lineMatching(
        run.output,
        /^\s+(http:\/\/127\.0\.0\.1:\d+\/#token=([\w-]+\.[\w-]+\.[\w-]+))\s*$/,
      ).then((match) => match.slice(1));
      expect(new URL(printed).origin).toBe(new URL(url).origin);
      expect(claimsOf(token)).toMatchObject({ org_id: DEMO_ORG_ID, sub: DEMO_USER_ID });
      expect(String(claimsOf(token).scope).split(" ")).toContain("project:read");
      // The same token as the banner's `export FOLIO_TOKEN=` line and the token file.
      expect(run.output).toContain(`  export FOLIO_TOKEN=${token}`);
      expect((await readFile(join(dataDir, "dev-token"), "utf8")).trim()).toBe(token);

      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const watch = watchPage(page);
        await page.goto(printed);
        await page
          .getByRole("status")
          .filter({ hasText: new RegExp(`^${DEMO_PROJECTS.length} projects$`) })
          .waitFor({ timeout: 30_000 });
        expect(await page.locator("table.projects tbody th").allTextContents()).toEqual(DEMO_PROJECTS);
        // The app took the token out of the address bar (into the tab's storage).
        expect(page.url()).toBe(`${new URL(url).origin}/`);
        expect(await page.title()).toBe("Projects · Folio");
        await mkdir(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOTS, "npm-start.png"), fullPage: true });
        expect(unexpectedConsoleErrors(watch.consoleErrors)).toEqual([]);
        expect(watch.requestsOutside(new URL(url).origin)).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );

  it("stops the server on a SIGTERM sent to npm alone, exits with the server's code and leaves no process behind", async () => {
    expect(isAlive(tree.server)).toBe(true);
    run.npm.kill("SIGTERM");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.output).toContainEqual(expect.stringContaining('"msg":"stopped"'));
    expect(tree.all.filter(isAlive).map(commandLine)).toEqual([]);
  });
});

describe("npm start, again on the same data", () => {
  it("stops the server on a SIGINT sent to npm alone, as on Ctrl-C", async () => {
    const run = npmStart(shellEnvironment(dataDir));
    started.push(run.npm.pid as number);
    await run.listening;
    const tree = processTree(run.npm);
    started.push(...tree.all);
    run.npm.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.output).toContainEqual(expect.stringContaining('"signal":"SIGINT"'));
    expect(tree.all.filter(isAlive).map(commandLine)).toEqual([]);
  });

  it("exits with the server's code when the server cannot start", async () => {
    const run = npmStart(shellEnvironment(dataDir, { PORT: "70000" }));
    started.push(run.npm.pid as number);
    run.listening.catch(() => undefined);
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.output).toContainEqual(expect.stringMatching(/^folio: invalid configuration: PORT/));
  });
});
