// docs/adding-a-method.md, checked: a method added as the guide says, in three files and nothing
// else (the rpc in the proto, its query in @folio/db, its handler), is served on every protocol,
// documented, scoped and typed on @folio/client, with the retries its idempotency_level declares.
//
// The method is GetProject (fixtures/adding-a-method/get-project.patch). The test copies the
// workspace's files (tracked and untracked, not ignored) to a temporary directory, records them
// there (a git index), applies the patch, runs the guide's build in the copy, and checks that the
// files that differ from the record are the patch's three and no more: the method needed no other
// edit, and the build wrote nothing that .gitignore does not ignore. Nothing is installed: the copy's
// node_modules hold the same links pnpm made here, so each workspace package resolves to the
// copy's package, and every other one to this workspace's store. It then starts the built server
// as `npm start` does (embedded PostgreSQL, development mode) and calls it through the client built
// in the copy. The record is the copy as made, not this workspace as it is later: the workspace may
// change while the test runs.
//
// When the patch no longer applies (the three files changed around it), make the same change by
// hand in a scratch copy of the workspace and write its `git diff` over the patch's diffs.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  copyFile,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  symlink,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOffline } from "./tooling.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/adding-a-method/", import.meta.url));
/** The files the patch edits: the proto, the query, the handler. */
const PATCHED = [
  "apps/server/src/services/projects.ts",
  "packages/db/src/projects.ts",
  "proto/folio/v1/project.proto",
];
/** The guide's build command. */
const BUILD = ["run", "build", "--filter=@folio/server...", "--output-logs=errors-only"];

/** Why the test cannot run on this machine (git copies and patches, buf builds), or undefined. */
function missingTool(): string | undefined {
  const tools = [
    ["git", "git"],
    ["buf", join(root, "proto/node_modules/.bin/buf")],
  ];
  for (const [name, command] of tools) {
    try {
      execFileSync(command as string, ["--version"], { stdio: "ignore" });
    } catch {
      return `${name} is not available`;
    }
  }
  return undefined;
}
const missing = missingTool();
/** `.ci/run` sets FOLIO_REQUIRE_TOOLS=1: there a missing tool fails the test instead of skipping it. */
const skip = missing !== undefined && process.env.FOLIO_REQUIRE_TOOLS !== "1";

/** The copy's server process, where it listens, and the file of its development token. */
interface Server {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly tokenFile: string;
}

interface Run {
  readonly code: number;
  readonly output: string;
}

function run(command: string, args: readonly string[], cwd: string, env = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      // The copy's build takes a minute or two on two busy cores: bounded well above that.
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 480_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, output: stdout + stderr });
      },
    );
  });
}

async function mustRun(
  command: string,
  args: readonly string[],
  cwd: string,
  env = process.env,
): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${result.code}):\n${result.output}`);
  return result.output;
}

/** Copies the workspace's files, tracked and untracked, not ignored; a tracked file deleted here stays out. */
async function copyWorkspace(to: string): Promise<string[]> {
  const listed = await mustRun("git", ["ls-files", "-co", "--exclude-standard", "-z"], root);
  const copied: string[] = [];
  for (const path of new Set(listed.split("\0").filter((path) => path !== ""))) {
    await mkdir(dirname(join(to, path)), { recursive: true });
    try {
      await copyFile(join(root, path), join(to, path));
      copied.push(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return copied.sort();
}

/**
 * Makes `to` hold what the node_modules directory `from` holds: the same links (pnpm's are
 * relative, so a workspace package's link now leads to the copy's package, a dependency's to the
 * copy's node_modules/.pnpm), scopes as directories of links, `.bin`'s scripts (they find their
 * package relative to themselves), and the store itself, node_modules/.pnpm, as a link to this
 * workspace's. Caches (other dot entries) stay out.
 */
async function mirrorNodeModules(from: string, to: string, isRoot: boolean): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else if (entry.name === ".bin") await cp(source, target, { recursive: true });
    else if (entry.name === ".pnpm" && isRoot) await symlink(source, target, "dir");
    else if (entry.name.startsWith("@") && entry.isDirectory())
      await mirrorNodeModules(source, target, false);
    else if (!entry.name.startsWith(".")) await symlink(source, target);
  }
}

/** The copy's links to workspace packages that lead out of the copy (there must be none). */
async function linksLeavingCopy(copy: string, packageDirs: readonly string[]): Promise<string[]> {
  const leaving: string[] = [];
  for (const dir of packageDirs) {
    const scope = join(copy, dir, "node_modules", "@folio");
    const names = await readdir(scope).catch(() => [] as string[]);
    for (const name of names) {
      const resolved = await realpath(join(scope, name));
      if (!resolved.startsWith(`${copy}/`)) leaving.push(`${dir}/node_modules/@folio/${name} -> ${resolved}`);
    }
  }
  return leaving;
}

/** The environment of the copy's build: this one's, without what a turbo running these tests set. */
function buildEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(TURBO_|VITEST)/.test(name) && name !== "NODE_ENV"),
  );
  return { ...env, TURBO_TELEMETRY_DISABLED: "1" };
}

/** The built server of the copy, as `npm start` runs it: embedded PostgreSQL, development mode. */
async function startServer(copy: string, dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, [join(copy, "apps/server/dist/main.js")], {
    cwd: copy,
    // DATABASE_URL, AUTH_* and NODE_ENV unset: the embedded database and development mode.
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: dataDir,
      PORT: "0",
      METRICS_PORT: "0",
      SHUTDOWN_GRACE_MS: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const orphaned = () => child.kill("SIGKILL");
  process.once("exit", orphaned);
  child.once("exit", () => process.off("exit", orphaned));
  // stderr holds development mode's token and links for a person, and a crash's trace.
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise<Server>((resolve, reject) => {
    let baseUrl = "";
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
      if (!text.startsWith("{")) return;
      const line = JSON.parse(text) as { msg?: string; url?: string; tokenFile?: string };
      if (line.msg === "listening") baseUrl = String(line.url);
      // Logged once the development token is written.
      if (line.tokenFile !== undefined) resolve({ child, baseUrl, tokenFile: line.tokenFile });
    });
    child.once("exit", (code) =>
      reject(new Error(`the server exited with ${code} before it was ready:\n${stderr}`)),
    );
    setTimeout(
      () => reject(new Error(`the server was not ready in development mode within 150 s:\n${stderr}`)),
      150_000,
    ).unref();
  });
}

async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(killer);
}

/** The claims of a JWT, unverified. */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
}

let dir: string;
let copy: string;
let copied: string[];
let packageDirs: string[];
let dataDir: string;
let clientDir: string;
let server: Server | undefined;
let devToken: string;

describe.skipIf(skip)(
  `GetProject, added in three files as docs/adding-a-method.md says${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    beforeAll(async () => {
      if (missing !== undefined) {
        throw new Error(`${missing}, and this run requires it (FOLIO_REQUIRE_TOOLS=1, as in CI)`);
      }
      dir = await mkdtemp(join(tmpdir(), "folio-adding-a-method-"));
      copy = join(dir, "workspace");
      dataDir = join(dir, "data");
      clientDir = join(dir, "client");

      copied = await copyWorkspace(copy);
      packageDirs = [...new Set(copied.filter((path) => basename(path) === "package.json").map(dirname))];
      for (const packageDir of packageDirs) {
        const from = join(root, packageDir, "node_modules");
        if (await lstat(from).catch(() => undefined)) {
          await mirrorNodeModules(from, join(copy, packageDir, "node_modules"), packageDir === ".");
        }
      }
      await mustRun("git", ["init", "--quiet"], copy);
      await mustRun("git", ["add", "--all"], copy);

      await mustRun("git", ["apply", join(fixture, "get-project.patch")], copy);
      await mustRun(join(copy, "node_modules/.bin/turbo"), BUILD, copy, buildEnv());

      server = await startServer(copy, dataDir);
      devToken = (await readFile(server.tokenFile, "utf8")).trim();

      // The programs of fixtures/adding-a-method/client, with the packages they import from the copy.
      await cp(join(fixture, "client"), clientDir, { recursive: true });
      const links = {
        "@folio/client": "packages/client",
        "@folio/proto": "proto",
        "@bufbuild/protobuf": "packages/client/node_modules/@bufbuild/protobuf",
        "@types/node": "apps/server/node_modules/@types/node",
      };
      for (const [name, path] of Object.entries(links)) {
        await mkdir(dirname(join(clientDir, "node_modules", name)), { recursive: true });
        await symlink(join(copy, path), join(clientDir, "node_modules", name), "dir");
      }
      // Copying, building (the whole graph, nothing cached) and starting: minutes on two busy cores.
    }, 600_000);

    afterAll(async () => {
      await stopServer(server?.child);
      if (dir !== undefined) await removeTempDir(dir);
    });

    it("is the only change: the copy differs from the workspace in the patch's three files, after the build too", async () => {
      // The record is the copy as made, links included: a workspace package resolves to the copy's.
      const recorded = (await mustRun("git", ["ls-files", "-z"], copy))
        .split("\0")
        .filter((path) => path !== "");
      expect(recorded.sort()).toEqual(copied);
      expect(await linksLeavingCopy(copy, packageDirs)).toEqual([]);
      // Edited, deleted or new since the record, and not ignored (build output is).
      const changed = await mustRun(
        "git",
        ["ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard"],
        copy,
      );
      expect([...new Set(changed.split("\0").filter((path) => path !== ""))].sort()).toEqual(PATCHED);
    });

    it("is typed on @folio/client: a program calling it compiles under tsc --strict, a wrong field name does not", async () => {
      const compile = await runOffline(
        join(copy, "node_modules/typescript/bin/tsc"),
        ["--project", "tsconfig.json"],
        {
          cwd: clientDir,
        },
      );
      // get-project.ts and retries.ts compile; wrong-field.ts fails on its two mistakes, and only those.
      expect(compile.stdout.trim().split("\n")).toEqual([
        expect.stringMatching(
          /^wrong-field\.ts\(6,\d+\): error TS2353: .*'projectId' does not exist in type/,
        ),
        expect.stringMatching(
          /^wrong-field\.ts\(7,\d+\): error TS2339: Property 'title' does not exist on type 'Project'/,
        ),
      ]);
    });

    it("answers on Connect, gRPC-Web, gRPC and REST through @folio/client, with its rules and errors", async () => {
      const called = await runOffline(join(clientDir, "get-project.ts"), [], {
        cwd: clientDir,
        env: { FOLIO_URL: server?.baseUrl ?? "", FOLIO_TOKEN: devToken, NODE_NO_WARNINGS: "1" },
      });
      expect(called.stderr).toBe("");
      expect(called.code).toBe(0);
      expect(called.networkAttempts).toEqual([]);
      const answers = JSON.parse(called.stdout) as Record<string, { listed: unknown; read: unknown }>;
      expect(Object.keys(answers)).toEqual(["connect", "grpc-web", "grpc", "rest"]);
      for (const answer of Object.values(answers)) {
        // The project ListProjects lists, read back; an unknown id and one that is not a UUID refused.
        expect(answer.read).toEqual(answer.listed);
        expect(answer).toMatchObject({
          listed: { id: expect.any(String), name: expect.any(String) },
          missing: { code: "not_found", fields: [] },
          malformed: { code: "invalid_argument", fields: ["id: must be a UUID"] },
        });
      }
    });

    it("is in the OpenAPI document: its route, scope, parameter rule and its own errors beside the service's", async () => {
      const document = (await (await fetch(`${server?.baseUrl}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, Record<string, unknown>>>;
      };
      const operation = document.paths["/projects/{id}"]?.get;
      expect(operation).toMatchObject({
        operationId: "ProjectService_GetProject",
        security: [{ oauth2: ["project:read"] }],
        parameters: expect.arrayContaining([
          expect.objectContaining({
            name: "id",
            in: "path",
            required: true,
            schema: { type: "string", format: "uuid" },
          }),
        ]),
      });
      const responses = operation?.responses as Record<string, { description: string }>;
      expect(responses["404"]?.description).toContain(
        "No project with this id exists in the caller's organisation",
      );
      expect(responses["403"]?.description).toContain("The token lacks the scope project:read.");
      expect(responses["429"]?.description).toContain("Rate limit exceeded");
    });

    it("needs project:read: a token without it gets 403, and the development token carries every declared scope", async () => {
      const document = (await (await fetch(`${server?.baseUrl}/api/v1/openapi.json`)).json()) as {
        components: { securitySchemes: { oauth2: { flows: { clientCredentials: { scopes: object } } } } };
      };
      const declared = Object.keys(document.components.securitySchemes.oauth2.flows.clientCredentials.scopes);
      expect(declared).toContain("project:read");
      expect(String(claimsOf(devToken).scope).split(" ").sort()).toEqual([...declared].sort());

      // `npm run token -- --scope ...` in the copy: every scope but the method's.
      const others = declared
        .filter((scope) => scope !== "project:read")
        .flatMap((scope) => ["--scope", scope]);
      const minted = await run(
        process.execPath,
        [join(copy, "apps/server/dist/token-cli.js"), ...others],
        copy,
        {
          PATH: process.env.PATH ?? "",
          DATA_DIR: dataDir,
        },
      );
      expect(minted.code, minted.output).toBe(0);
      const token = minted.output.trim();
      const id = randomUUID();
      const rest = await fetch(`${server?.baseUrl}/api/v1/projects/${id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(rest.status).toBe(403);
      expect(rest.headers.get("www-authenticate")).toContain('scope="project:read"');
      expect(((await rest.json()) as { error: { code: string } }).error.code).toBe("permission_denied");
      const connect = await fetch(`${server?.baseUrl}/folio.v1.ProjectService/GetProject`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ id }),
      });
      expect(connect.status).toBe(403);
      expect(((await connect.json()) as { code: string }).code).toBe("permission_denied");
    });

    it("is retried as its idempotency_level says: once more after a 503, and Connect sends it as GET; without the level, never", async () => {
      const listed = await fetch(`${server?.baseUrl}/api/v1/projects?pageSize=1`, {
        headers: { authorization: `Bearer ${devToken}` },
      });
      const [project] = ((await listed.json()) as { projects: { id: string }[] }).projects;
      const retried = await runOffline(join(clientDir, "retries.ts"), [], {
        cwd: clientDir,
        env: {
          FOLIO_URL: server?.baseUrl ?? "",
          FOLIO_TOKEN: devToken,
          PROJECT_ID: project?.id ?? "",
          NODE_NO_WARNINGS: "1",
        },
      });
      expect(retried.stderr).toBe("");
      expect(retried.code).toBe(0);
      // Declared NO_SIDE_EFFECTS: a second request, which the server answers. Without the level:
      // the 503 is the answer.
      expect(JSON.parse(retried.stdout)).toEqual({
        connect: {
          declared: { requests: ["GET", "GET"], outcome: "ok" },
          undeclared: { requests: ["POST"], outcome: "unavailable" },
        },
        "grpc-web": {
          declared: { requests: ["POST", "POST"], outcome: "ok" },
          undeclared: { requests: ["POST"], outcome: "unavailable" },
        },
        rest: {
          declared: { requests: ["GET", "GET"], outcome: "ok" },
          undeclared: { requests: ["GET"], outcome: "unavailable" },
        },
      });
    });

    it("passes the contract gate: a new method is a compatible change", async () => {
      const gate = await run(
        process.execPath,
        [join(copy, "tooling/contract-gate/src/cli.ts"), "check"],
        copy,
      );
      expect(gate.output).toMatch(/^contract gate: the proto and the REST surface are compatible/);
      expect(gate.code).toBe(0);
    });
  },
);
