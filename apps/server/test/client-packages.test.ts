// The client packages as a user outside the monorepo gets them: packed into tarballs (pnpm pack
// turns `workspace:` and `catalog:` into versions), installed with npm into an empty project that
// has only the registry and the tarballs, a program type-checked under `tsc --strict`, then run
// against the built server over REST, Connect, gRPC-Web and gRPC: the client's shorthands, the
// methods and pages derived from the descriptors, and a client of the services the program names.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDir } from "@folio/test-support/temp-dir";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./server-process.js";
import { runOffline } from "./tooling.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/client-package/", import.meta.url));
/** The packages a user installs, and where they are in the workspace. */
const PACKAGES = ["packages/client", "proto", "packages/googleapis"];
const NPM_CLI = "/usr/lib/node_modules/npm/bin/npm-cli.js";

function run(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      // A first install on a busy machine fetches from the registry: minutes, bounded.
      { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 420_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          output: stdout + stderr,
        });
      },
    );
  });
}

let server: ServerProcess;
let project: string;
let tarballs: string;
const ORG = randomUUID();

beforeAll(async () => {
  server = await startServerProcess({});
  const db = new pg.Client({ connectionString: server.database.url });
  await db.connect();
  await db.query(
    `INSERT INTO projects (org_id, name) SELECT $1::uuid, 'Project ' || n FROM generate_series(1, 5) AS n`,
    [ORG],
  );
  await db.end();
  tarballs = await mkdtemp(join(tmpdir(), "folio-tarballs-"));
  project = await mkdtemp(join(tmpdir(), "folio-client-user-"));
}, 200_000);

afterAll(async () => {
  await server?.stop();
  if (tarballs !== undefined) await removeTempDir(tarballs);
  if (project !== undefined) await removeTempDir(project);
});

describe("the client packages, installed from their tarballs outside the workspace", () => {
  it("pack with no workspace: dependency, install with npm, type-check under --strict, and work over every protocol", async () => {
    for (const dir of PACKAGES) {
      const packed = await run("pnpm", ["pack", "--pack-destination", tarballs], join(root, dir));
      expect(packed.code, packed.output).toBe(0);
    }
    const files = (await readdir(tarballs)).sort();
    expect(files).toEqual(["folio-client-0.1.0.tgz", "folio-googleapis-0.1.0.tgz", "folio-proto-0.1.0.tgz"]);
    for (const file of files) {
      const listed = await run("tar", ["-xOzf", join(tarballs, file), "package/package.json"], tarballs);
      const manifest = JSON.parse(listed.output) as {
        private?: boolean;
        dependencies?: Record<string, string>;
      };
      expect(manifest.private).toBeUndefined();
      expect(Object.values(manifest.dependencies ?? {}).join(" ")).not.toMatch(/workspace:|catalog:/);
    }

    await cp(fixture, project, { recursive: true });
    const tarball = (name: string) => `file:${join(tarballs, `folio-${name}-0.1.0.tgz`)}`;
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({
        name: "folio-user",
        private: true,
        type: "module",
        dependencies: {
          "@folio/client": tarball("client"),
          "@folio/proto": tarball("proto"),
          "@folio/googleapis": tarball("googleapis"),
        },
        // The packages' own dependency on each other is a version: the tarball serves it.
        overrides: { "@folio/googleapis": tarball("googleapis"), "@folio/proto": tarball("proto") },
        devDependencies: { typescript: "5.9.3", "@types/node": "24.19.2" },
      }),
    );
    // npm reaches the registry with the machine's TLS trust and proxy settings (turbo.json passes
    // NODE_EXTRA_CA_CERTS and the proxy variables to tests); a cold npm cache fails without them.
    const install = await run(
      process.execPath,
      [NPM_CLI, "install", "--no-audit", "--no-fund", "--prefer-offline"],
      project,
    );
    expect(install.code, install.output).toBe(0);
    const lock = await readFile(join(project, "package-lock.json"), "utf8");
    const folio = Object.entries(
      (JSON.parse(lock) as { packages: Record<string, { resolved?: string }> }).packages,
    ).filter(([path]) => path.includes("node_modules/@folio/"));
    // Each @folio package came from a tarball, none from a registry.
    expect(folio.map(([path]) => path).sort()).toEqual([
      "node_modules/@folio/client",
      "node_modules/@folio/googleapis",
      "node_modules/@folio/proto",
    ]);
    for (const [, entry] of folio) expect(entry.resolved).toMatch(/^file:/);

    const compile = await runOffline(
      join(project, "node_modules/typescript/bin/tsc"),
      ["--project", "tsconfig.json"],
      {
        cwd: project,
      },
    );
    expect(compile.stdout + compile.stderr).toBe("");
    expect(compile.code).toBe(0);

    const token = await server.issuer.sign({ org_id: ORG });
    const seen: Record<string, unknown> = {};
    for (const protocol of ["rest", "connect", "grpc-web", "grpc"]) {
      const program = await runOffline(join(project, "main.ts"), [], {
        cwd: project,
        env: {
          FOLIO_URL: server.baseUrl,
          FOLIO_TOKEN: token,
          FOLIO_PROTOCOL: protocol,
          NODE_NO_WARNINGS: "1",
        },
      });
      expect(program.stderr, protocol).toBe("");
      expect(program.code, protocol).toBe(0);
      expect(program.networkAttempts).toEqual([]);
      seen[protocol] = JSON.parse(program.stdout);
    }
    for (const [protocol, result] of Object.entries(seen)) {
      const { folder } = result as { folder: { id: string } };
      expect(result, protocol).toEqual({
        folder: { id: folder.id, name: `Invoices (${protocol})`, color: "#aabbcc" },
        taken: {
          code: "already_exists",
          reason: "FOLDER_NAME_TAKEN",
          folderId: folder.id,
          requestId: expect.any(String),
        },
        invalid: { code: "invalid_argument", fields: ["color", "parentId", "requestId"] },
        names: ["Project 1", "Project 2", "Project 3", "Project 4", "Project 5"],
        firstPage: { size: 2, more: true },
        read: { id: folder.id, name: `Invoices (${protocol})` },
        children: ["Child 1", "Child 2", "Child 3"],
        services: { created: "Child 4", read: folder.id, listed: 4, listProjects: false },
      });
    }
    // Installing from the registry and compiling take a while on a busy machine.
  }, 600_000);
});
