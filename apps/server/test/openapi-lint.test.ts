import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFolioOpenApiDocument } from "@folio/api-document";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/env.js";
import { startTestServer } from "./harness.js";
import { binOf, runOffline } from "./tooling.js";

// The document as each security set-up serves it: OAuth 2.0 at a configured token endpoint, a
// bearer token when the token endpoint is not known, and development mode's own token endpoint.
const served: { name: string; env: Record<string, string> }[] = [
  {
    name: "a token endpoint (AUTH_TOKEN_URL)",
    env: { AUTH_TOKEN_URL: "https://issuer.folio.test/oauth2/token" },
  },
  { name: "no known token endpoint", env: {} },
];

let dir: string;
const documents = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "folio-openapi-lint-"));
  for (const { name, env } of served) {
    const server = await startTestServer(env);
    try {
      const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
      expect(response.status).toBe(200);
      documents.set(name, await response.text());
    } finally {
      await server.close();
    }
  }
  const development = createFolioOpenApiDocument(loadConfig({}).auth);
  documents.set("development mode", JSON.stringify(development));
  await writeFile(join(dir, ".spectral.json"), JSON.stringify({ extends: ["spectral:oas"] }));
}, 180_000);

afterAll(async () => {
  await removeTempDir(dir);
});

describe.each([...served.map((s) => s.name), "development mode"])("the OpenAPI document with %s", (name) => {
  const file = () => join(dir, `${name.replace(/\W+/g, "-")}.json`);
  beforeAll(async () => {
    await writeFile(file(), documents.get(name) ?? "");
  });

  it("passes `redocly lint` (recommended rules) with no error and no warning, offline", async () => {
    const run = await runOffline(binOf("@redocly/cli", "redocly"), ["lint", "--format", "json", file()], {
      cwd: dir,
      // Telemetry and the update check are the CLI's only network use; both off, as in any CI.
      env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    expect(run.networkAttempts).toEqual([]);
    const report = JSON.parse(run.stdout) as { totals: Record<string, number>; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.code).toBe(0);
  }, 120_000);

  it("passes `spectral lint` (spectral:oas) with no error and no warning, offline", async () => {
    const run = await runOffline(
      binOf("@stoplight/spectral-cli", "spectral"),
      ["lint", "--ruleset", join(dir, ".spectral.json"), "--format", "json", "--quiet", file()],
      { cwd: dir },
    );
    expect(run.networkAttempts).toEqual([]);
    expect(JSON.parse(run.stdout || "[]")).toEqual([]);
    expect(run.code).toBe(0);
  }, 120_000);
});
