// The server as the image gets it: `pnpm --filter @folio/server deploy --legacy --prod`, the
// Dockerfile's build stage, into a directory of its own. It holds what the built server loads at
// run time and nothing of the build's tools (TypeScript, the Prisma CLI, Prisma Studio, Scalar's
// sources), and from it the server starts, serves and migrates as it does in the workspace.
import { execFile } from "node:child_process";
import { lstat, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@folio/test-support";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./server-process.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
/** What the deployed directory may weigh: 173 MB when this was written (docs/operations.md, "The image"). */
const MAX_BYTES = 250 * 1024 * 1024;

/** Runs a command to its end: its exit code and output. */
function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { ...options, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          output: stdout + stderr,
        });
      },
    );
  });
}

/** The bytes of the regular files below `dir`, symbolic links not followed. */
async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await lstat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

let temp: string;
let app: string;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), "folio-deploy-"));
  app = join(temp, "app");
  const deployed = await run(
    "pnpm",
    ["--filter", "@folio/server", "deploy", "--legacy", "--prod", "--prefer-offline", app],
    { cwd: root },
  );
  expect(deployed.code, deployed.output).toBe(0);
}, 300_000);

afterAll(async () => {
  if (temp !== undefined) await removeTempDir(temp);
});

describe("the production bundle (pnpm deploy --prod)", () => {
  it("holds the server's build and its run-time packages, without TypeScript, the Prisma CLI, Studio or Scalar's sources", async () => {
    expect((await readdir(app)).sort()).toEqual(["README.md", "dist", "node_modules", "package.json"]);
    const packages = await readdir(join(app, "node_modules", ".pnpm"));
    const named = (prefix: string) => packages.filter((name) => name.startsWith(prefix));
    for (const prefix of ["typescript@", "prisma@", "@prisma+studio", "@prisma+dev@", "@scalar+", "vue@"]) {
      expect(named(prefix), prefix).toEqual([]);
    }
    // What the server loads from node_modules: PGlite, OpenTelemetry's SDK, Prisma's query compiler.
    for (const prefix of ["@electric-sql+pglite@", "@opentelemetry+sdk-node@", "@prisma+client@"]) {
      expect(named(prefix), prefix).toHaveLength(1);
    }
    expect(await directoryBytes(app)).toBeLessThan(MAX_BYTES);
  });

  it("applies the migrations with `node dist/main.js migrate`; --check exits 1 before and 0 after", async () => {
    const database = await createTestDatabase();
    try {
      const migrate = (...args: string[]) =>
        run(process.execPath, ["dist/main.js", "migrate", ...args], {
          cwd: app,
          env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, DATA_DIR: temp },
        });
      expect((await migrate("--check")).code).toBe(1);
      const applied = await migrate();
      expect(applied.code, applied.output).toBe(0);
      expect((await migrate("--check")).code).toBe(0);
    } finally {
      await database.drop();
    }
  });

  describe("node dist/main.js from it", () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServerProcess({ NODE_ENV: "production" }, { main: join(app, "dist", "main.js") });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("turns ready and serves the API (through Prisma too), the docs page's script and the web app", async () => {
      await expect.poll(async () => (await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      const create = await fetch(`${server.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await server.issuer.sign()}`,
          "content-type": "application/json",
          // Idempotency keys go through Prisma, whose query compiler is loaded from node_modules.
          "idempotency-key": "production-bundle-1",
        },
        body: JSON.stringify({ name: "Deployed" }),
      });
      expect(create.status).toBe(201);
      const script = await fetch(`${server.baseUrl}/api/v1/docs/scalar-api-reference.js`);
      expect(script.status).toBe(200);
      expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
      const webApp = await fetch(`${server.baseUrl}/`);
      expect(webApp.status).toBe(200);
      expect(await webApp.text()).toContain('<div id="root">');
    });
  });
});
