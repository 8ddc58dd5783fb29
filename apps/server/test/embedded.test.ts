import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { declaredScopes, FolderService, ProjectService, requiredScope } from "@folio/proto";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { DEMO_ORG_ID, DEMO_USER_ID } from "../src/demo.js";
import { loadConfig } from "../src/env.js";
import { apiScopeNames, services } from "../src/services/api.js";
import { listen } from "../src/transport/listen.js";
import { bearer, createTransport } from "./harness.js";

/** Starts the server the way the README's start command does: no DATABASE_URL, no AUTH_JWKS_*. */
async function startDefault(dataDir: string) {
  const app = await createApp(loadConfig({ DATA_DIR: dataDir, PORT: "0" }), pino({ level: "silent" }));
  const server = await listen(app.handler, { host: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  return {
    app,
    baseUrl,
    transport: createTransport("connect", baseUrl),
    async stop() {
      await server.close(1000);
      await app.close();
    },
  };
}

describe("the embedded default (development mode, PGlite in DATA_DIR)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "folio-embedded-"));
  });
  afterAll(async () => {
    await removeTempDir(dataDir);
  });

  it("serves demo projects, keeps folders and keys across a restart", async () => {
    const first = await startDefault(dataDir);
    expect(first.app.database.embedded).toBe(true);
    const token = await first.app.developmentIssuer!.mint({
      userId: DEMO_USER_ID,
      orgId: DEMO_ORG_ID,
      scopes: apiScopeNames,
    });
    const listed = await createClient(ProjectService, first.transport).listProjects({}, bearer(token));
    expect(listed.projects.length).toBe(3);
    const { folder } = await createClient(FolderService, first.transport).createFolder(
      { name: "Kept" },
      bearer(token),
    );

    const jwks = (await (await fetch(`${first.baseUrl}/.well-known/jwks.json`)).json()) as {
      keys: { kid: string; d?: string }[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]?.d).toBeUndefined();
    await first.stop();

    const second = await startDefault(dataDir);
    // The same signing key: a token printed by the first run still works.
    const child = await createClient(FolderService, second.transport).createFolder(
      { name: "Child of kept", parentId: folder!.id },
      bearer(token),
    );
    expect(child.folder?.parentId).toBe(folder?.id);
    const again = await createClient(ProjectService, second.transport).listProjects({}, bearer(token));
    expect(again.projects.length).toBe(3);
    await second.stop();

    const key = JSON.parse(await readFile(join(dataDir, "dev-signing-key.jwk.json"), "utf8")) as {
      kid: string;
    };
    expect(key.kid).toBe(jwks.keys[0]?.kid);
  });

  it("creates every one of 300 parallel folders, over REST and Connect (queued, never a 500)", async () => {
    const server = await startDefault(dataDir);
    try {
      const token = await server.app.developmentIssuer!.mint({
        userId: DEMO_USER_ID,
        orgId: DEMO_ORG_ID,
        scopes: apiScopeNames,
      });
      const run = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const name = `Parallel ${run} ${i}`;
          if (i % 2 === 0) {
            const response = await fetch(`${server.baseUrl}/api/v1/folders`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              body: JSON.stringify({ name }),
            });
            await response.arrayBuffer();
            return response.status;
          }
          // Every other one with an idempotency key: those run in a transaction.
          const response = await fetch(`${server.baseUrl}/folio.v1.FolderService/CreateFolder`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ name, requestId: `parallel-${run}-${i}` }),
          });
          await response.arrayBuffer();
          return response.status === 200 ? 201 : response.status;
        }),
      );
      const counts = Object.fromEntries(
        [...new Set(statuses)].map((status) => [status, statuses.filter((s) => s === status).length]),
      );
      expect(counts).toEqual({ 201: 300 });
    } finally {
      await server.stop();
    }
  });

  it("serves the OAuth 2.0 token endpoint the OpenAPI document names, for the docs page's request client", async () => {
    // A data directory of its own: the embedded database of another test may still be closing.
    const ownDir = await mkdtemp(join(tmpdir(), "folio-embedded-token-"));
    const server = await startDefault(ownDir);
    try {
      const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
        components: {
          securitySchemes: Record<string, { flows: { clientCredentials: { tokenUrl: string } } }>;
        };
      };
      const tokenUrl = document.components.securitySchemes.oauth2?.flows.clientCredentials.tokenUrl;
      expect(tokenUrl).toBe("/oauth/token");

      const grant = (body: string) =>
        fetch(`${server.baseUrl}${tokenUrl}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
        });
      const response = await grant("grant_type=client_credentials&scope=project%3Aread&client_id=docs");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const token = (await response.json()) as { access_token: string; token_type: string; scope: string };
      expect(token).toMatchObject({ token_type: "Bearer", scope: "project:read" });

      // The token is the demo user's, with the scope asked for and no other.
      const headers = { authorization: `Bearer ${token.access_token}` };
      const listed = await fetch(`${server.baseUrl}/api/v1/projects`, { headers });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { projects: unknown[] }).projects).toHaveLength(3);
      const create = await fetch(`${server.baseUrl}/api/v1/folders`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ name: "Not allowed" }),
      });
      expect(create.status).toBe(403);

      // Without a scope, every scope of the API: each method can be called with it, and it holds
      // no scope the services do not declare.
      const all = (await (await grant("grant_type=client_credentials")).json()) as { scope: string };
      const granted = all.scope.split(" ");
      for (const method of services.flatMap((service) => service.methods)) {
        expect(granted, `${method.parent.name}.${method.name}`).toContain(requiredScope(method));
      }
      const declared = new Set(
        services.flatMap((service) => declaredScopes(service).map((scope) => scope.name)),
      );
      expect(granted.filter((scope) => !declared.has(scope))).toEqual([]);

      // Errors as RFC 6749, section 5.2, has them.
      const refused = async (body: string) => {
        const answer = await grant(body);
        return [answer.status, ((await answer.json()) as { error: string }).error];
      };
      expect(await refused("grant_type=password&username=a&password=b")).toEqual([
        400,
        "unsupported_grant_type",
      ]);
      expect(await refused("grant_type=client_credentials&scope=admin")).toEqual([400, "invalid_scope"]);
      const wrongType = await fetch(`${server.baseUrl}${tokenUrl}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(wrongType.status).toBe(400);
      expect((await fetch(`${server.baseUrl}${tokenUrl}`)).status).toBe(405);
    } finally {
      await server.stop();
      await removeTempDir(ownDir);
    }
  }, 120_000);
});
