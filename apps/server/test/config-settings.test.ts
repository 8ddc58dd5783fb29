// Every setting has one declaration (src/config/), which the loaders read and docs/configuration.md
// is generated from: these tests hold the declarations, the loaders and the generated file together.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DEFAULT_ALGORITHMS } from "@folio/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_ALGORITHMS } from "../src/config/auth-algorithms.js";
import { settingGroups } from "../src/config/catalogue.js";
import type { Env } from "../src/config/variables.js";
import { loadConfig } from "../src/env.js";

const serverDir = fileURLToPath(new URL("..", import.meta.url));
const doc = fileURLToPath(new URL("../../../docs/configuration.md", import.meta.url));
const declared = settingGroups.flatMap((group) => group.settings);

/** The variables `loadConfig` looks up in `env`, read as it reads them. */
function variablesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name !== "string") return undefined;
      read.add(name);
      return target[name];
    },
  }) as Env;
  loadConfig(recording);
  return read;
}

/** Runs scripts/config-docs.ts as `pnpm lint` and `docs:config` do, with `args`. */
async function configDocs(...args: string[]) {
  return promisify(execFile)(process.execPath, ["scripts/config-docs.ts", ...args], { cwd: serverDir })
    .then(({ stderr }) => ({ code: 0, stderr }))
    .catch((error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }));
}

describe("the settings' declarations", () => {
  it("name every variable loadConfig reads, once, and loadConfig reads every one declared", () => {
    const names = declared.map((setting) => setting.name);
    expect(new Set(names).size).toBe(names.length);
    const read = new Set([
      ...variablesRead({}),
      ...variablesRead({
        AUTH_JWKS_URL: "https://issuer.example/jwks",
        AUTH_ISSUER: "i",
        AUTH_AUDIENCE: "a",
      }),
      ...variablesRead({ AUTH_JWKS_FILE: "/jwks.json", AUTH_ISSUER: "i", AUTH_AUDIENCE: "a" }),
      ...variablesRead({ DATABASE_URL: "postgres://localhost/f", DATABASE_READ_URL: "postgres://r/f" }),
    ]);
    const ownedByLoadConfig = declared.filter((setting) => !setting.external).map((setting) => setting.name);
    expect([...read].sort()).toEqual([...ownedByLoadConfig].sort());
  });

  it("document AUTH_ALGORITHMS' default as @folio/auth applies it", () => {
    expect(AUTH_ALGORITHMS.default).toBe(`\`${DEFAULT_ALGORITHMS.join(",")}\``);
  });
});

describe("docs/configuration.md", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "folio-config-docs-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is what the declarations give (the check `pnpm lint` runs passes)", async () => {
    expect(await configDocs("--check")).toEqual({ code: 0, stderr: "" });
    for (const setting of declared) expect(await readFile(doc, "utf8")).toContain(`### \`${setting.name}\``);
  });

  it("fails the check when stale, saying the command that regenerates it", async () => {
    const stale = join(dir, "stale.md");
    const current = await readFile(doc, "utf8");
    await writeFile(stale, current.replace("Default: `8080`.", "Default: `8000`."));
    const { code, stderr } = await configDocs("--check", "--file", stale);
    expect(code).toBe(1);
    expect(stderr).toContain("is stale");
    expect(stderr).toContain("Run `pnpm --filter @folio/server docs:config`");
    const missing = await configDocs("--check", "--file", join(dir, "missing.md"));
    expect(missing.code).toBe(1);
  });

  it("is written by docs:config as the check wants it", async () => {
    const written = join(dir, "written.md");
    expect((await configDocs("--file", written)).code).toBe(0);
    expect(await readFile(written, "utf8")).toBe(await readFile(doc, "utf8"));
    expect((await configDocs("--check", "--file", written)).code).toBe(0);
  });
});
