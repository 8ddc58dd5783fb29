// A start that cannot succeed fails at once, in one line naming the variable at fault, before the
// database is migrated: what the settings name (an address, a JWKS file, Redis) is checked first. A database that is down at start is waited for, within
// DATABASE_START_TIMEOUT_MS, and named (never with its password) when it does not come.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { freePort } from "@folio/test-support/ports";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER } from "@folio/test-support/tokens";
import { exportJWK, generateKeyPair } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkJwksFile } from "../src/startup/jwks-file.js";
import { startGateProxy } from "./gate-proxy.js";
import { runServer } from "./server-run.js";

let dir: string;
let database: TestDatabase;
/** A valid configuration with a JWKS file on the fresh database (as in production, but for the tests' issuer). */
let valid: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "folio-start-checks-"));
  database = await createTestDatabase();
  const issuer = await createTestIssuer();
  await writeFile(join(dir, "jwks.json"), JSON.stringify(issuer.jwks));
  await writeFile(join(dir, "not-a-jwks.json"), JSON.stringify({ issuer: TEST_ISSUER }));
  valid = {
    DATABASE_URL: database.url,
    DATA_DIR: dir,
    PORT: "0",
    METRICS_PORT: "0",
    NODE_ENV: "production",
    AUTH_JWKS_FILE: join(dir, "jwks.json"),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
  };
});

afterAll(async () => {
  await database?.drop();
  await removeTempDir(dir);
});

/** Whether the database has the migrations' bookkeeping table: a migration ran on it. */
async function migrationTableExists(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string | null }>(
      "SELECT to_regclass('_prisma_migrations')::text AS name",
    );
    return rows[0]?.name !== null;
  } finally {
    await client.end();
  }
}

describe("a bad setting", () => {
  it.each([
    [{ AUTH_ALGORITHMS: "RS257" }, "AUTH_ALGORITHMS"],
    [{ HOST: "bogus.invalid" }, "HOST"],
    [{ AUTH_JWKS_FILE: "/nonexistent/jwks.json" }, "AUTH_JWKS_FILE"],
    [{ AUTH_JWKS_FILE: "not-a-jwks.json" }, "AUTH_JWKS_FILE"],
    [{ REDIS_URL: "redis://127.0.0.1:1" }, "REDIS_URL"],
  ])("stops the start for %j with one line naming it, the database not migrated", async (bad, variable) => {
    const env: Record<string, string> = { ...valid, ...bad };
    // A file of this test's directory, made in beforeAll.
    if (env.AUTH_JWKS_FILE === "not-a-jwks.json") env.AUTH_JWKS_FILE = join(dir, "not-a-jwks.json");
    const run = runServer(env);
    expect(await run.exited).toBe(1);
    expect(run.stderr).toEqual([
      expect.stringMatching(new RegExp(`^folio: (invalid configuration: )?${variable} `)),
    ]);
    expect(run.lines.map((line) => line.msg)).not.toContain("listening");
    expect(await migrationTableExists(database.url)).toBe(false);
  });
});

describe("development mode with a database on another machine", () => {
  const remote = "postgres://folio:s3cret-password@db.example.invalid/folio";

  it("is refused without a JWKS, naming the variables", async () => {
    const run = runServer({ DATABASE_URL: remote, DATA_DIR: dir, PORT: "0", METRICS_PORT: "0" });
    expect(await run.exited).toBe(1);
    expect(run.stderr).toEqual([
      expect.stringMatching(
        /^folio: invalid configuration: AUTH_JWKS_URL or AUTH_JWKS_FILE is required with a DATABASE_URL on another machine .*DEVELOPMENT_MODE_REMOTE_DATABASE=allow/,
      ),
    ]);
  });

  it("starts when DEVELOPMENT_MODE_REMOTE_DATABASE=allow, then fails on the database, naming DATABASE_URL without its password", async () => {
    const run = runServer({
      DATABASE_URL: remote,
      DEVELOPMENT_MODE_REMOTE_DATABASE: "allow",
      DATABASE_START_TIMEOUT_MS: "500",
      DATA_DIR: dir,
      PORT: "0",
      METRICS_PORT: "0",
    });
    expect(await run.exited).toBe(1);
    expect(run.stderr).toEqual([
      expect.stringMatching(
        /^folio: DATABASE_URL \(postgres:\/\/folio:\*\*\*@db\.example\.invalid\/folio\) could not be reached/,
      ),
    ]);
    expect(JSON.stringify([run.stderr, run.lines])).not.toContain("s3cret-password");
  });
});

describe("the database down at start", () => {
  it("is waited for, each attempt a warning, then named in one line without its password", async () => {
    const port = await freePort();
    const run = runServer({
      ...valid,
      DATABASE_URL: `postgres://folio:s3cret-password@127.0.0.1:${port}/folio`,
      DATABASE_START_TIMEOUT_MS: "1500",
    });
    expect(await run.exited).toBe(1);
    const waits = run.lines.filter((line) => line.msg === "database not reachable yet: waiting for it");
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits.every((line) => line.level === "warn")).toBe(true);
    expect(run.stderr).toEqual([
      expect.stringMatching(
        /^folio: DATABASE_URL \(postgres:\/\/folio:\*\*\*@127\.0\.0\.1:\d+\/folio\) could not be reached in \d+ attempts within 1500 ms \(DATABASE_START_TIMEOUT_MS\)/,
      ),
    ]);
    expect(JSON.stringify([run.stderr, run.lines])).not.toContain("s3cret-password");
  });

  it("lets the server start once it comes up during the wait", async () => {
    const target = new URL(database.url);
    const gate = await startGateProxy({ host: target.hostname, port: Number(target.port) });
    try {
      const url = new URL(database.url);
      url.port = String(gate.port);
      const run = runServer({
        ...valid,
        DATABASE_URL: url.toString(),
        ...(database.kind === "embedded" ? { DATABASE_POOL_SIZE: String(database.poolSize) } : {}),
      });
      try {
        await run.line((line) => line.msg === "database not reachable yet: waiting for it");
        expect(run.lines.map((line) => line.msg)).not.toContain("listening");
        gate.open();
        const listening = await run.line((line) => line.msg === "listening");
        expect(run.lines.map((line) => line.msg)).toContain("migrations applied");
        await expect.poll(async () => (await fetch(`${listening.url}/readyz`)).status).toBe(200);
        expect(gate.refused).toBeGreaterThan(0);
      } finally {
        await run.stop();
      }
    } finally {
      await gate.close();
    }
  });
});

describe("the JWKS file check", () => {
  const algorithms = ["RS256", "PS256", "ES256", "EdDSA"];

  async function file(contents: unknown): Promise<string> {
    const path = join(dir, `jwks-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, JSON.stringify(contents));
    return path;
  }

  it("accepts a set of public keys, one at least for an accepted algorithm", async () => {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    await expect(
      checkJwksFile(await file({ keys: [await exportJWK(publicKey)] }), algorithms),
    ).resolves.toBeUndefined();
  });

  it("refuses a set with no key for AUTH_ALGORITHMS, a private key, and a key jose cannot import", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES384", { extractable: true });
    await expect(checkJwksFile(await file({ keys: [] }), algorithms)).rejects.toThrow(
      /^AUTH_JWKS_FILE .* has no key for AUTH_ALGORITHMS/,
    );
    await expect(
      checkJwksFile(await file({ keys: [await exportJWK(publicKey)] }), algorithms),
    ).rejects.toThrow(/has no key for AUTH_ALGORITHMS \(RS256, PS256, ES256, EdDSA\)/);
    await expect(
      checkJwksFile(await file({ keys: [{ ...(await exportJWK(privateKey)), alg: "ES384" }] }), ["ES384"]),
    ).rejects.toThrow(/private key/);
    await expect(
      checkJwksFile(
        await file({ keys: [{ kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA", kid: "broken" }] }),
        algorithms,
      ),
    ).rejects.toThrow(/kid "broken".*cannot be imported/);
  });
});
