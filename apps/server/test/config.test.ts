import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/env.js";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** A JWKS configured: the server is not in development mode, whatever its database. */
const WITH_JWKS = {
  AUTH_JWKS_URL: "https://issuer.example/jwks.json",
  AUTH_ISSUER: "https://issuer.example",
  AUTH_AUDIENCE: "folio",
};

/** Starts the built server with exactly `env` (plus PATH) and returns how it ended. */
function startWith(env: Record<string, string>) {
  const result = spawnSync(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: result.status, stderr: result.stderr.trim() };
}

describe("configuration", () => {
  it("defaults to 127.0.0.1:8080, the embedded database and development mode", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: "127.0.0.1", port: 8080, databaseUrl: undefined, logLevel: "info" });
    expect(config.auth.mode).toBe("development");
  });

  it("reads listings from DATABASE_READ_URL's replicas with their own pool, and refuses replica settings without it", () => {
    expect(loadConfig({}).databaseRead).toBeUndefined();
    const primary = "postgres://folio@db-primary/folio";
    expect(
      loadConfig({
        ...WITH_JWKS,
        DATABASE_URL: primary,
        DATABASE_READ_URL: "postgres://folio@db-replicas/folio",
      }).databaseRead,
    ).toEqual({
      url: "postgres://folio@db-replicas/folio",
      poolSize: 10,
      acquireTimeoutMs: 2_000,
      maxLagMs: 2_000,
    });
    expect(
      loadConfig({
        ...WITH_JWKS,
        DATABASE_URL: primary,
        DATABASE_READ_URL: "postgresql://folio@db-replicas/folio",
        DATABASE_READ_POOL_SIZE: "4",
        DATABASE_READ_ACQUIRE_TIMEOUT_MS: "500",
        DATABASE_READ_MAX_LAG_MS: "0",
      }).databaseRead,
    ).toMatchObject({ poolSize: 4, acquireTimeoutMs: 500, maxLagMs: 0 });
    expect(() => loadConfig({ DATABASE_READ_URL: "postgres://folio@db-replicas/folio" })).toThrow(
      /DATABASE_READ_URL needs DATABASE_URL/,
    );
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: "mysql://x" })).toThrow(
      /DATABASE_READ_URL must be/,
    );
    expect(() => loadConfig({ DATABASE_READ_MAX_LAG_MS: "100" })).toThrow(
      /DATABASE_READ_MAX_LAG_MS is set but DATABASE_READ_URL is not/,
    );
    expect(() =>
      loadConfig({
        DATABASE_URL: primary,
        DATABASE_READ_URL: "postgres://r/f",
        DATABASE_READ_POOL_SIZE: "0",
      }),
    ).toThrow(/DATABASE_READ_POOL_SIZE must be an integer from 1/);
  });

  it("bounds connections and request bodies by default", () => {
    expect(loadConfig({})).toMatchObject({
      maxRequestBodyBytes: 1_048_576,
      restCompressMinBytes: 1024,
      connections: { headersTimeoutMs: 15_000, http2MaxConcurrentStreams: 100 },
    });
  });

  it("bounds the lingering close after an early answer by time: 30 s, 15 s idle (and 1 GiB) unless configured", () => {
    expect(loadConfig({}).connections).toMatchObject({
      lingerTimeMs: 30_000,
      lingerIdleMs: 15_000,
      lingerMaxBytes: 1024 * 1024 * 1024,
    });
    expect(
      loadConfig({ HTTP_LINGER_TIME_MS: "600", HTTP_LINGER_IDLE_MS: "100", HTTP_LINGER_MAX_BYTES: "65536" })
        .connections,
    ).toMatchObject({ lingerTimeMs: 600, lingerIdleMs: 100, lingerMaxBytes: 65_536 });
    expect(() => loadConfig({ HTTP_LINGER_MAX_BYTES: "-1" })).toThrow(
      /HTTP_LINGER_MAX_BYTES must be an integer from 0/,
    );
  });

  it("calls unary RPCs in-process unless RPC_IN_PROCESS_UNARY is off", () => {
    expect(loadConfig({}).rpcInProcessUnary).toBe(true);
    expect(loadConfig({ RPC_IN_PROCESS_UNARY: "OFF" }).rpcInProcessUnary).toBe(false);
    expect(loadConfig({ RPC_IN_PROCESS_UNARY: "on" }).rpcInProcessUnary).toBe(true);
    expect(() => loadConfig({ RPC_IN_PROCESS_UNARY: "no" })).toThrow(
      /RPC_IN_PROCESS_UNARY must be on or off/,
    );
  });

  it("uses a JWKS when one is configured", () => {
    const config = loadConfig({
      AUTH_JWKS_URL: "https://issuer.example/jwks.json",
      AUTH_ISSUER: "https://issuer.example",
      AUTH_AUDIENCE: "folio",
    });
    expect(config.auth).toMatchObject({ mode: "jwks", jwksUrl: "https://issuer.example/jwks.json" });
  });

  it("runs development mode only when asked for: NODE_ENV unset or development, on a database of this machine", () => {
    for (const env of [{}, { NODE_ENV: "" }, { NODE_ENV: "development" }, { NODE_ENV: "Development" }]) {
      expect(loadConfig(env).auth.mode).toBe("development");
    }
    for (const url of [
      "postgres://u@localhost/x",
      "postgres://u:p@127.0.0.1:5432/x",
      "postgres://u@[::1]/x",
      "postgres://u@%2Fvar%2Frun%2Fpostgresql/x",
      "postgresql:///x?host=/var/run/postgresql",
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).auth.mode).toBe("development");
    }
    for (const nodeEnv of ["production", "Production", "PRODUCTION", "prod", "staging", "test"]) {
      expect(() => loadConfig({ NODE_ENV: nodeEnv })).toThrow(
        `AUTH_JWKS_URL or AUTH_JWKS_FILE is required when NODE_ENV=${nodeEnv} (development mode`,
      );
    }
    for (const url of ["postgres://u@db.example.invalid/x", "postgres://u@10.0.0.5/x", "postgresql:///x"]) {
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(
        /required with a DATABASE_URL on another machine/,
      );
      expect(loadConfig({ DATABASE_URL: url, DEVELOPMENT_MODE_REMOTE_DATABASE: "allow" }).auth.mode).toBe(
        "development",
      );
    }
    // Allowing a database elsewhere does not lift NODE_ENV's refusal.
    expect(() => loadConfig({ NODE_ENV: "production", DEVELOPMENT_MODE_REMOTE_DATABASE: "allow" })).toThrow(
      /NODE_ENV=production/,
    );
  });

  it("migrates at start unless MIGRATE_ON_START=false, and waits up to 60 s for the database", () => {
    expect(loadConfig({})).toMatchObject({ migrateOnStart: true, databaseStartTimeoutMs: 60_000 });
    expect(loadConfig({ MIGRATE_ON_START: "FALSE", DATABASE_START_TIMEOUT_MS: "0" })).toMatchObject({
      migrateOnStart: false,
      databaseStartTimeoutMs: 0,
    });
  });

  it("accepts the JWS algorithms of public-key signatures jose verifies, and nothing else", () => {
    expect(loadConfig({ AUTH_ALGORITHMS: "RS512, ES384,EdDSA,Ed25519,ML-DSA-65," }).auth.algorithms).toEqual([
      "RS512",
      "ES384",
      "EdDSA",
      "Ed25519",
      "ML-DSA-65",
    ]);
    expect(loadConfig({}).auth.algorithms).toBeUndefined();
    for (const list of ["RS257", "rs256", "RS256,ES257", ","]) {
      expect(() => loadConfig({ AUTH_ALGORITHMS: list })).toThrow(
        `AUTH_ALGORITHMS must list JWS algorithms of public-key signatures, of RS256, RS384`,
      );
    }
    for (const list of ["HS256", "RS256,none"]) {
      expect(() => loadConfig({ AUTH_ALGORITHMS: list })).toThrow(/^AUTH_ALGORITHMS must list asymmetric/);
    }
  });

  it("reads CORS_ALLOWED_ORIGINS as a comma-separated list of origins; unset is none", () => {
    expect(loadConfig({}).corsAllowedOrigins).toEqual([]);
    expect(
      loadConfig({ CORS_ALLOWED_ORIGINS: " http://localhost:5173, https://app.example.com ," })
        .corsAllowedOrigins,
    ).toEqual(["http://localhost:5173", "https://app.example.com"]);
  });

  it("reads PAGE_TOKEN_SECRET as a comma-separated list, current first, refusing a short one without showing it", () => {
    const current = "current-secret-0123456789-0123456789";
    const previous = "previous-secret-0123456789-0123456789";
    expect(loadConfig({}).pageTokenSecrets).toEqual([]);
    expect(loadConfig({ PAGE_TOKEN_SECRET: current }).pageTokenSecrets).toEqual([current]);
    expect(loadConfig({ PAGE_TOKEN_SECRET: ` ${current} , ${previous} ` }).pageTokenSecrets).toEqual([
      current,
      previous,
    ]);
    for (const list of [`${current},too-short-secret`, `${current},`]) {
      expect(() => loadConfig({ PAGE_TOKEN_SECRET: list })).toThrow(
        /^PAGE_TOKEN_SECRET must list secrets of at least 32 characters each, comma-separated \(secret 2 of 2 /,
      );
      expect(() => loadConfig({ PAGE_TOKEN_SECRET: list })).not.toThrow(/too-short-secret|current-secret/);
    }
  });

  it("refuses a placeholder for PAGE_TOKEN_SECRET, such as the example Secret's, however long", () => {
    const current = "current-secret-0123456789-0123456789";
    const example = /^ {2}page-token-secret: (\S+)$/m.exec(
      readFileSync(new URL("../../../deploy/kubernetes/secret.example.yaml", import.meta.url), "utf8"),
    )?.[1];
    expect(example?.length).toBeGreaterThanOrEqual(32);
    for (const placeholder of [
      example as string,
      "changeme-changeme-changeme-changeme",
      "replace-with-a-secret-of-32-characters",
      "an-example-secret-of-32-characters-or-more",
    ]) {
      expect(() => loadConfig({ PAGE_TOKEN_SECRET: `${current},${placeholder}` })).toThrow(
        /^PAGE_TOKEN_SECRET must list secrets, not placeholders \(secret 2 of 2 contains "(change|replace|example)"/,
      );
    }
  });

  it("takes the issuer's token endpoint for the API documentation, as an http(s) URL", () => {
    expect(loadConfig({ AUTH_TOKEN_URL: "https://issuer.example/oauth2/token" }).auth.tokenUrl).toBe(
      "https://issuer.example/oauth2/token",
    );
    expect(loadConfig({}).auth.tokenUrl).toBeUndefined();
    expect(() => loadConfig({ AUTH_TOKEN_URL: "issuer.example/token" })).toThrow(
      "AUTH_TOKEN_URL must be an http(s) URL",
    );
  });

  it("serves metrics on 127.0.0.1:9464 unless METRICS_PORT=off, and waits 5 s before refusing connections on shutdown", () => {
    const config = loadConfig({});
    expect(config.metrics).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(config.shutdownGraceMs).toBe(5000);
    expect(loadConfig({ METRICS_PORT: "off" }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_HOST: "0.0.0.0", METRICS_PORT: "0" }).metrics).toEqual({
      host: "0.0.0.0",
      port: 0,
    });
  });

  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ METRICS_PORT: "on" }, "METRICS_PORT"],
    [{ SHUTDOWN_GRACE_MS: "-1" }, "SHUTDOWN_GRACE_MS"],
    [{ PORT: "70000" }, "PORT"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ DATABASE_URL: "mysql://localhost/folio" }, "DATABASE_URL"],
    [{ AUTH_JWKS_URL: "https://issuer.example/jwks.json" }, "AUTH_ISSUER"],
    [{ NODE_ENV: "production" }, "AUTH_JWKS_URL"],
    [{ NODE_ENV: "Production" }, "AUTH_JWKS_URL"],
    [{ NODE_ENV: "PRODUCTION" }, "AUTH_JWKS_URL"],
    [{ NODE_ENV: "prod" }, "AUTH_JWKS_URL"],
    [{ DATABASE_URL: "postgres://u@db.example.invalid/x" }, "AUTH_JWKS_URL"],
    [{ DEVELOPMENT_MODE_REMOTE_DATABASE: "yes" }, "DEVELOPMENT_MODE_REMOTE_DATABASE"],
    [{ MIGRATE_ON_START: "maybe" }, "MIGRATE_ON_START"],
    [{ DATABASE_START_TIMEOUT_MS: "-1" }, "DATABASE_START_TIMEOUT_MS"],
    [
      { AUTH_JWKS_FILE: "/x", AUTH_ISSUER: "i", AUTH_AUDIENCE: "a", AUTH_ALGORITHMS: "HS256" },
      "AUTH_ALGORITHMS",
    ],
    [
      { AUTH_JWKS_FILE: "/x", AUTH_ISSUER: "i", AUTH_AUDIENCE: "a", AUTH_ALGORITHMS: "RS257" },
      "AUTH_ALGORITHMS",
    ],
    [{ PAGE_TOKEN_SECRET: "too short" }, "PAGE_TOKEN_SECRET"],
    [{ PAGE_TOKEN_SECRET: `${"a".repeat(40)},too short` }, "PAGE_TOKEN_SECRET"],
    [{ PAGE_TOKEN_SECRET: "CHANGE-to-the-output-of-openssl-rand-base64-32" }, "PAGE_TOKEN_SECRET"],
    [{ RATE_LIMIT_ORG_REQUESTS: "0" }, "RATE_LIMIT_ORG_REQUESTS"],
    [{ RATE_LIMIT_TOKEN_REQUESTS: "-5" }, "RATE_LIMIT_TOKEN_REQUESTS"],
    [{ RATE_LIMIT_WINDOW_SECONDS: "0" }, "RATE_LIMIT_WINDOW_SECONDS"],
    [{ REDIS_URL: "localhost:6379" }, "REDIS_URL"],
    [{ HTTP_HEADERS_TIMEOUT_MS: "0" }, "HTTP_HEADERS_TIMEOUT_MS"],
    [{ HTTP_HEADERS_TIMEOUT_MS: "20000", HTTP_REQUEST_TIMEOUT_MS: "10000" }, "HTTP_REQUEST_TIMEOUT_MS"],
    [{ HTTP2_MAX_CONCURRENT_STREAMS: "0" }, "HTTP2_MAX_CONCURRENT_STREAMS"],
    [{ MAX_REQUEST_BODY_BYTES: "1 MiB" }, "MAX_REQUEST_BODY_BYTES"],
    [{ CORS_ALLOWED_ORIGINS: "http://localhost:5173/" }, "CORS_ALLOWED_ORIGINS"],
    [{ CORS_ALLOWED_ORIGINS: "*" }, "CORS_ALLOWED_ORIGINS"],
  ])("stops start-up with one line naming the variable for %j", (env, variable) => {
    const { status, stderr } = startWith(env);
    expect(status).toBe(1);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^folio: invalid configuration: ${variable} `));
  });
});
