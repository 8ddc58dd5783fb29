import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { FolderService, ProjectService } from "@folio/proto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { DEMO_ORG_ID, DEMO_USER_ID } from "../src/demo.js";
import { loadConfig } from "../src/env.js";
import { listen } from "../src/http/listen.js";
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
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it("serves demo projects, keeps folders and keys across a restart", async () => {
    const first = await startDefault(dataDir);
    expect(first.app.database.embedded).toBe(true);
    const token = await first.app.developmentIssuer!.mint({
      userId: DEMO_USER_ID,
      orgId: DEMO_ORG_ID,
      scopes: ["files:upload", "project:read"],
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
        scopes: ["files:upload", "project:read"],
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
});
