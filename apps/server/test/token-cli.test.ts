// `npm run token` as built (dist/token-cli.js): without --scope, its token can call every method of
// the API, the scopes read from the descriptors; with --scope, only those asked for.
import { spawnSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { declaredScopes, requiredScope } from "@folio/proto";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { services } from "../src/services/api.js";

const cli = fileURLToPath(new URL("../dist/token-cli.js", import.meta.url));

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "folio-token-cli-"));
});
afterAll(async () => {
  await removeTempDir(dataDir);
});

/** Runs the token command in development mode with `args`. */
function token(args: readonly string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir },
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

/** The scopes a printed token carries. */
function scopesOf(printed: string): string[] {
  const payload = printed.trim().split(".")[1] ?? "";
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { scope: string };
  return claims.scope.split(" ");
}

describe("the token command", () => {
  it("mints by default a token with the scope of every method, and no scope the services do not declare", () => {
    const granted = scopesOf(token([]));
    for (const method of services.flatMap((service) => service.methods)) {
      expect(granted, `${method.parent.name}.${method.name}`).toContain(requiredScope(method));
    }
    const declared = new Set(
      services.flatMap((service) => declaredScopes(service).map((scope) => scope.name)),
    );
    expect(granted.filter((scope) => !declared.has(scope))).toEqual([]);
  });

  it("mints only the scopes asked for", () => {
    expect(scopesOf(token(["--scope", "project:read"]))).toEqual(["project:read"]);
  });

  it("names its default scopes in its usage", () => {
    const usage = token(["--help"]);
    for (const method of services.flatMap((service) => service.methods)) {
      expect(usage).toContain(requiredScope(method));
    }
  });
});
