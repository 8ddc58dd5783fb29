// The real Folio server, `node apps/server/dist/main.js` of this workspace (built by turbo before
// this package's tests: see turbo.json), on a fresh database, listening on a free port.
import { spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { apiScopeNames } from "@folio/api-document";
import { createTestDatabase } from "@folio/test-support";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";

const main = fileURLToPath(new URL("../../../apps/server/dist/main.js", import.meta.url));

/** A running server. */
export interface FolioServer {
  readonly baseUrl: string;
  readonly issuer: TestIssuer;
  /** Kills it, drops its database and removes its directory. */
  stop(): Promise<void>;
}

/** Starts the server with no rate limit; resolves once it listens. */
export async function startFolioServer(): Promise<FolioServer> {
  const database = await createTestDatabase();
  const issuer = await createTestIssuer({ scopes: apiScopeNames });
  const dir = await mkdtemp(join(tmpdir(), "folio-client-server-"));
  await writeFile(join(dir, "jwks.json"), JSON.stringify(issuer.jwks));
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: database.url,
      ...(database.kind === "embedded" ? { DATABASE_POOL_SIZE: String(database.poolSize) } : {}),
      DATA_DIR: dir,
      PORT: "0",
      METRICS_PORT: "0",
      AUTH_JWKS_FILE: join(dir, "jwks.json"),
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_AUDIENCE: TEST_AUDIENCE,
      RATE_LIMIT_ORG_REQUESTS: "0",
      RATE_LIMIT_TOKEN_REQUESTS: "0",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Never left behind, even when a test times out or its worker is torn down.
  const orphaned = () => child.kill("SIGKILL");
  process.once("exit", orphaned);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      process.off("exit", orphaned);
      await database.drop();
      await removeTempDir(dir);
    })();
    return stopping;
  };
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
      const line = JSON.parse(text) as { msg?: string; url?: string };
      if (line.msg === "listening") resolve(String(line.url));
    });
    void exited.then((code) =>
      reject(new Error(`the server exited with ${code} before listening (is it built?)`)),
    );
    // Starting takes seconds, tens of them on a loaded machine with an embedded database.
    setTimeout(() => reject(new Error("the server did not listen within 150 s")), 150_000).unref();
  });
  try {
    return { baseUrl: await listening, issuer, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
