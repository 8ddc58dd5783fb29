// The REST packages as a connect-es user gets them: @folio/http-transcoder and @folio/openapi packed
// into tarballs (pnpm pack turns `workspace:` and `catalog:` into versions), and the example project
// examples/library-rest (a user's own project: its own proto, buf generate, a plain connect-es
// router) copied out of the workspace, installed with npm from the registry and the two tarballs,
// its code generated, type-checked under `tsc --strict`, and its server run: REST routes of its
// google.api.http rules, Connect, gRPC-Web and gRPC through connect-node, and its OpenAPI document.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOffline } from "./tooling.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const example = join(root, "examples/library-rest");
const client = fileURLToPath(new URL("./fixtures/library-rest-client/client.ts", import.meta.url));
/** The packages a user installs from tarballs, where they are in the workspace, and the tarball the example names. */
const PACKAGES = [
  {
    name: "@folio/http-transcoder",
    dir: "packages/http-transcoder",
    tarball: "vendor/folio-http-transcoder.tgz",
  },
  { name: "@folio/openapi", dir: "packages/openapi", tarball: "vendor/folio-openapi.tgz" },
] as const;
const NPM_CLI = "/usr/lib/node_modules/npm/bin/npm-cli.js";
/** What a run of the example in the workspace leaves behind, which a user's copy of it does not have. */
const LEFT_BEHIND = new Set(["node_modules", "vendor", "package-lock.json", join("src", "gen")]);
/** An import of Connect's protocol modules (`@connectrpc/connect/protocol`, `.../protocol-grpc`...), in ES or CommonJS form. */
const PROTOCOL_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](@connectrpc\/connect\/protocol(?:-[a-z-]+)?)["']/g;

function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      // A first install on a busy machine fetches from the registry: minutes, bounded.
      { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 420_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          output: stdout + stderr,
          stdout,
        });
      },
    );
  });
}

/** A package in the tree `npm ls --all --json` prints. */
interface NpmLsNode {
  readonly dependencies?: Record<string, NpmLsNode>;
}

let tarballs: string;
let project: string;

beforeAll(async () => {
  tarballs = await mkdtemp(join(tmpdir(), "folio-rest-tarballs-"));
  project = await mkdtemp(join(tmpdir(), "folio-rest-user-"));
});

afterAll(async () => {
  await stopServer();
  if (tarballs !== undefined) await removeTempDir(tarballs);
  if (project !== undefined) await removeTempDir(project);
});

describe("the REST packages, installed from their tarballs in a connect-es project of their own", () => {
  it("pack as publishable packages: not private, no workspace: or catalog: range", async () => {
    for (const { dir } of PACKAGES) {
      const out = join(tarballs, dir.replaceAll("/", "-"));
      await mkdir(out);
      const packed = await run("pnpm", ["pack", "--pack-destination", out], join(root, dir));
      expect(packed.code, packed.output).toBe(0);
      const files = await readdir(out);
      expect(files).toHaveLength(1);
      const listed = await run("tar", ["-xOzf", join(out, files[0]!), "package/package.json"], tarballs);
      const manifest = JSON.parse(listed.output) as {
        name: string;
        private?: boolean;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
      expect(manifest.private, dir).toBeUndefined();
      const ranges = [manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies]
        .flatMap((deps) => Object.entries(deps ?? {}))
        .filter(([, range]) => /workspace:|catalog:/.test(range));
      expect(ranges, dir).toEqual([]);
    }
  }, 120_000);

  it("install with npm beside the registry's packages, and bring no other @folio package", async () => {
    // The example as a user has it, without what a run of it in the workspace left behind.
    await cp(example, project, {
      recursive: true,
      filter: (source) => !LEFT_BEHIND.has(relative(example, source)),
    });
    // The tarballs where the example's package.json expects them (`file:vendor/...`).
    await mkdir(join(project, "vendor"));
    for (const { dir, tarball } of PACKAGES) {
      const out = join(tarballs, dir.replaceAll("/", "-"));
      const [file] = await readdir(out);
      await rename(join(out, file!), join(project, tarball));
    }
    // npm reaches the registry with the machine's TLS trust and proxy settings (turbo.json passes
    // NODE_EXTRA_CA_CERTS and the proxy variables to tests); a cold npm cache fails without them.
    const install = await run(
      process.execPath,
      [NPM_CLI, "install", "--no-audit", "--no-fund", "--prefer-offline"],
      project,
    );
    expect(install.code, install.output).toBe(0);

    const listed = await run(process.execPath, [NPM_CLI, "ls", "--all", "--json"], project);
    expect(listed.code, listed.output).toBe(0);
    const folio = new Set<string>();
    const walk = ({ dependencies }: NpmLsNode) => {
      for (const [name, node] of Object.entries(dependencies ?? {})) {
        if (name.startsWith("@folio/")) folio.add(name);
        walk(node);
      }
    };
    walk(JSON.parse(listed.stdout) as NpmLsNode);
    expect([...folio].sort()).toEqual(["@folio/http-transcoder", "@folio/openapi"]);
    const installed = await readdir(join(project, "node_modules/@folio"));
    expect(installed.sort()).toEqual(["http-transcoder", "openapi"]);
    // Each came from its tarball, none from a registry.
    const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string }>;
    };
    const entries = Object.entries(lock.packages).filter(([path]) => path.includes("node_modules/@folio/"));
    expect(entries.map(([path]) => path).sort()).toEqual([
      "node_modules/@folio/http-transcoder",
      "node_modules/@folio/openapi",
    ]);
    for (const [, entry] of entries) expect(entry.resolved).toMatch(/^file:/);
  }, 480_000);

  it("reach none of Connect's protocol modules from their dependency trees", async () => {
    const tree = await dependencyTree(
      project,
      PACKAGES.map(({ name }) => name),
    );
    const names = [...tree.values()];
    for (const name of [
      "@folio/http-transcoder",
      "@folio/openapi",
      "@bufbuild/protobuf",
      "@connectrpc/connect",
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain("@connectrpc/connect-node");
    const imports: string[] = [];
    let scanned = 0;
    for (const dir of tree.keys()) {
      for (const file of await sourceFiles(dir)) {
        scanned++;
        for (const specifier of importsOfProtocol(await readFile(file, "utf8"))) {
          imports.push(`${relative(project, file)} imports "${specifier}"`);
        }
      }
    }
    expect(scanned).toBeGreaterThan(50);
    expect(imports).toEqual([]);
    // The scan sees such imports where they are: in connect-node, which the example's RPC side uses.
    const connectNode = join(project, "node_modules/@connectrpc/connect-node");
    const found = (
      await Promise.all((await sourceFiles(connectNode)).map((file) => readFile(file, "utf8")))
    ).flatMap(importsOfProtocol);
    expect(found).toContain("@connectrpc/connect/protocol");
  });

  it("generate the example's code with buf and type-check it under --strict", async () => {
    const env = { PATH: `${join(project, "node_modules/.bin")}${delimiter}${process.env.PATH ?? ""}` };
    const generate = await runOffline(join(project, "node_modules/@bufbuild/buf/bin/buf"), ["generate"], {
      cwd: project,
      env,
    });
    expect(generate.stdout + generate.stderr).toBe("");
    expect(generate.code).toBe(0);
    const generated = await readdir(join(project, "src/gen"), { recursive: true });
    expect(generated).toContain(join("library", "v1", "library_pb.ts"));
    expect(generated).toContain(join("google", "api", "annotations_pb.ts"));

    // A client of the service, as the example's user writes one, type-checked with it.
    await cp(client, join(project, "src/client.ts"));
    const compile = await runOffline(
      join(project, "node_modules/typescript/bin/tsc"),
      ["--project", "tsconfig.json", "--strict", "--noEmit"],
      { cwd: project },
    );
    expect(compile.stdout + compile.stderr).toBe("");
    expect(compile.code).toBe(0);
  }, 180_000);

  it("serve REST, Connect, gRPC-Web, gRPC and the OpenAPI document from the example's server", async () => {
    const { http1, h2c } = await startServer(project);
    const json = { "content-type": "application/json" };

    const shelf = await fetch(`${http1}/v1/shelves`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ theme: "Poetry" }),
    });
    expect(shelf.status).toBe(200);
    const { id: shelfId } = (await shelf.json()) as { id: string };
    const created = await fetch(`${http1}/v1/shelves/${shelfId}/books`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ title: "Odes", author: "John Keats" }),
    });
    expect(created.status).toBe(200);
    const book = (await created.json()) as { id: string };
    expect(book).toEqual({ id: expect.any(String), shelfId, title: "Odes", author: "John Keats" });

    const read = await fetch(`${http1}/v1/shelves/${shelfId}/books/${book.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(book);

    const missing = await fetch(`${http1}/v1/shelves/${shelfId}/books/no-such-book`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/json/);
    const envelope = (await missing.json()) as { error: { requestId: string } };
    expect(envelope).toEqual({
      error: {
        code: "not_found",
        message: `book "no-such-book" not found on shelf "${shelfId}"`,
        requestId: expect.any(String),
        details: [],
      },
    });
    expect(missing.headers.get("x-request-id")).toBe(envelope.error.requestId);

    // The same service over Connect, gRPC-Web and gRPC, through connect-node's transports.
    const program = await runOffline(join(project, "src/client.ts"), [], {
      cwd: project,
      env: { LIBRARY_URL: http1, LIBRARY_H2C_URL: h2c, SHELF_ID: shelfId, NODE_NO_WARNINGS: "1" },
    });
    expect(program.stderr).toBe("");
    expect(program.code).toBe(0);
    expect(program.networkAttempts).toEqual([]);
    const seen = JSON.parse(program.stdout) as Record<string, unknown>;
    expect(Object.keys(seen)).toEqual(["connect", "grpc-web", "grpc"]);
    for (const [protocol, result] of Object.entries(seen)) {
      expect(result, protocol).toEqual({
        shelf: { id: shelfId, theme: "Poetry" },
        created: { shelfId, title: `Sent over ${protocol}`, author: "A client" },
        firstPage: { titles: ["Odes"], more: true },
        missing: "NotFound",
      });
    }

    // What the RPCs added, read over REST a page at a time: one service, one state.
    const titles: string[] = [];
    let pageToken = "";
    do {
      const page = await fetch(`${http1}/v1/shelves/${shelfId}/books?pageSize=2&pageToken=${pageToken}`);
      expect(page.status).toBe(200);
      const body = (await page.json()) as { books: { title: string }[]; nextPageToken: string };
      titles.push(...body.books.map(({ title }) => title));
      pageToken = body.nextPageToken;
    } while (pageToken !== "" && titles.length < 10);
    expect(titles).toEqual(["Odes", "Sent over connect", "Sent over grpc-web", "Sent over grpc"]);

    const document = await fetch(`${http1}/openapi.json`);
    expect(document.status).toBe(200);
    expect(document.headers.get("content-type")).toMatch(/^application\/json/);
    const openapi = (await document.json()) as {
      openapi: string;
      info: { title: string };
      servers: { url: string }[];
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(openapi.openapi).toMatch(/^3\.1\./);
    expect(openapi.info.title).toBe("Library");
    expect(openapi.servers.map(({ url }) => url)).toEqual(["/v1"]);
    const operations = Object.entries(openapi.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual([
      "GET /shelves/{shelf_id}",
      "GET /shelves/{shelf_id}/books",
      "GET /shelves/{shelf_id}/books/{book_id}",
      "POST /shelves",
      "POST /shelves/{shelf_id}/books",
    ]);
  }, 120_000);
});

let server: ChildProcess | undefined;

/**
 * Starts the example's server (`node src/server.ts`, as `npm start` does) on ports the system
 * picks, and waits until it says where it listens, over HTTP/1.1 and h2c.
 */
function startServer(cwd: string): Promise<{ http1: string; h2c: string }> {
  const child = spawn(process.execPath, ["src/server.ts"], {
    cwd,
    env: { ...process.env, PORT: "0", H2C_PORT: "0", NODE_NO_WARNINGS: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  let output = "";
  return new Promise((resolve, reject) => {
    const ports = new Map<string, string>();
    const fail = (reason: string) => {
      clearTimeout(timer);
      reject(new Error(`${reason}; its output:\n${output}`));
    };
    const timer = setTimeout(() => fail("the example's server did not listen within 60 s"), 60_000);
    child.once("exit", (code, signal) =>
      fail(`the example's server exited (${code ?? signal}) before listening`),
    );
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      for (const [, name, port] of output.matchAll(/^(HTTP\/1\.1|h2c) on http:\/\/localhost:(\d+)$/gm)) {
        ports.set(name!, `http://127.0.0.1:${port}`);
      }
      const http1 = ports.get("HTTP/1.1");
      const h2c = ports.get("h2c");
      if (http1 !== undefined && h2c !== undefined) {
        clearTimeout(timer);
        resolve({ http1, h2c });
      }
    });
  });
}

/** Stops the example's server, if it runs: SIGTERM, then SIGKILL if it is still there after 10 s. */
async function stopServer(): Promise<void> {
  const child = server;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The directories of `names` and of every package they depend on (dependencies, peer and optional
 * dependencies), transitively, each found where Node resolves it from the package that needs it;
 * mapped to the package's name.
 */
async function dependencyTree(projectDir: string, names: readonly string[]): Promise<Map<string, string>> {
  const tree = new Map<string, string>();
  const queue = names.map((name) => ({ name, from: projectDir, optional: false }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const dir = await installedDir(next.name, next.from, projectDir);
    if (dir === undefined) {
      if (next.optional) continue;
      throw new Error(
        `${next.name}, needed by ${relative(projectDir, next.from) || "the project"}, is not installed`,
      );
    }
    if (tree.has(dir)) continue;
    tree.set(dir, next.name);
    const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      optionalDependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies ?? {}))
      queue.push({ name, from: dir, optional: false });
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      queue.push({ name, from: dir, optional: manifest.peerDependenciesMeta?.[name]?.optional === true });
    }
    for (const name of Object.keys(manifest.optionalDependencies ?? {}))
      queue.push({ name, from: dir, optional: true });
  }
  return tree;
}

/** Where Node finds the package `name` from the directory `from`: the nearest node_modules/<name> up to the project. */
async function installedDir(name: string, from: string, projectDir: string): Promise<string | undefined> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (await stat(join(candidate, "package.json")).catch(() => undefined)) return candidate;
    if (dir === projectDir || !dir.startsWith(projectDir + sep)) return undefined;
  }
}

/** The JavaScript and TypeScript files of a package (declarations included), not those of packages nested in it. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(?:[cm]?js|[cm]?ts)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !relative(dir, file).split(sep).includes("node_modules"));
}

/** The specifiers of Connect's protocol modules that a file's text imports or requires. */
function importsOfProtocol(text: string): string[] {
  return [...text.matchAll(PROTOCOL_IMPORT)].map((match) => match[1]!);
}
