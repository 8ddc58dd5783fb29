// scripts/folder-cycles.ts, which `pnpm lint` runs: it fails when two top folders of src/ import
// each other, directly or through a third, and names the imports that close the cycle.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/folder-cycles.ts", import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeTempDir(dir);
});

/** A src/ tree of the given files (path: content). */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "folder-cycles-"));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** Runs the check on a tree: its exit code and what it printed. */
async function check(src?: string): Promise<{ code: number; output: string }> {
  const args = [SCRIPT, ...(src === undefined ? [] : ["--src", src])];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args);
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, output: failed.stderr };
  }
}

describe("the folder-level import cycle check", () => {
  it("passes the server's own src/", async () => {
    expect((await check()).code).toBe(0);
  });

  it("passes imports that go one way, type-only ones and those within a folder included", async () => {
    const src = await tree({
      "observe/log.ts": 'import type { Handler } from "../transport/handler.js";\nimport "./span.js";\n',
      "observe/span.ts": "export {};\n",
      "transport/handler.ts": "export type Handler = () => void;\n",
      "app.ts": 'import "./observe/log.js";\nimport "./transport/handler.js";\n',
    });
    expect(await check(src)).toMatchObject({ code: 0 });
  });

  it("fails on two folders importing each other, and names the imports", async () => {
    const src = await tree({
      "observe/log.ts": 'import type { Handler } from "../transport/handler.js";\n',
      "transport/handler.ts": 'import { log } from "../observe/log.js";\nexport type Handler = typeof log;\n',
    });
    const { code, output } = await check(src);
    expect(code).toBe(1);
    expect(output).toContain("observe/, transport/");
    expect(output).toContain("observe/log.ts -> ../transport/handler.js");
    expect(output).toContain("transport/handler.ts -> ../observe/log.js");
  });

  it("fails on a cycle through a third folder, or through a file at the top of src/", async () => {
    const src = await tree({
      "a/one.ts": 'export { two } from "../b/two.js";\n',
      "b/two.ts": 'import "../env.js";\nexport const two = 2;\n',
      "env.ts": 'const a = await import("./a/one.js");\nexport default a;\n',
    });
    const { code, output } = await check(src);
    expect(code).toBe(1);
    expect(output).toContain("a/, b/, env.ts");
  });
});
