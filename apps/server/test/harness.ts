import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { createDatabaseOnServer, createTestDatabase, type TestDatabase } from "@folio/test-support";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import pg from "pg";
import { pino } from "pino";
import { type App, createApp } from "../src/app.js";
import { loadConfig } from "../src/env.js";
import { logFormat } from "../src/observe/log-format.js";
import { traceContextMixin } from "../src/observe/tracing.js";
import { apiScopeNames } from "../src/services/api.js";
import { type Listening, listen } from "../src/transport/listen.js";

/** The three protocols every RPC is served on, with a Node client transport for each. */
export const PROTOCOLS = ["connect", "grpc", "grpc-web"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** A Folio server on a random loopback port, with its own database and token issuer. */
export interface TestServer {
  readonly baseUrl: string;
  readonly app: App;
  readonly issuer: TestIssuer;
  readonly database: TestDatabase;
  transport(protocol: Protocol): Transport;
  /** Runs SQL straight against the server's database (as other systems would). */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** Receives every log line of the server, parsed; without it the server logs nothing. */
  readonly log?: (line: Record<string, unknown>) => void;
  /** A PostgreSQL server to create the test database on, instead of DATABASE_URL's or an embedded one. */
  readonly databaseServerUrl?: string;
}

/** Starts a server backed by a fresh test database (real PostgreSQL when DATABASE_URL is set). */
export async function startTestServer(
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const database =
    options.databaseServerUrl === undefined
      ? await createTestDatabase()
      : await createDatabaseOnServer(options.databaseServerUrl, "folio_test");
  const issuer = await createTestIssuer({ scopes: apiScopeNames });
  const dir = await mkdtemp(join(tmpdir(), "folio-server-"));
  const jwksFile = join(dir, "jwks.json");
  await writeFile(jwksFile, JSON.stringify(issuer.jwks));
  const config = loadConfig({
    DATABASE_URL: database.url,
    DATA_DIR: dir,
    PORT: "0",
    AUTH_JWKS_FILE: jwksFile,
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    // As the server does for its own embedded database: one connection, requests queue for it.
    ...(database.kind === "embedded"
      ? { DATABASE_POOL_SIZE: String(database.poolSize), DATABASE_ACQUIRE_TIMEOUT_MS: "30000" }
      : {}),
    ...env,
  });
  const log = options.log;
  const logger =
    log === undefined
      ? pino({ level: "silent" })
      : pino(
          // As main.ts logs: with the trace context of the request a line is written under.
          { ...logFormat("info"), mixin: traceContextMixin },
          { write: (line: string) => log(JSON.parse(line) as Record<string, unknown>) },
        );
  const app = await createApp(config, logger);
  const server: Listening = await listen(app.handler, {
    host: "127.0.0.1",
    port: 0,
    limits: config.connections,
  });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const pool = new pg.Pool({
    connectionString: database.url,
    max: database.kind === "embedded" ? database.poolSize : 2,
  });
  // Tests that stop the database make idle connections fail; that is no failure of the test.
  pool.on("error", () => undefined);
  return {
    baseUrl,
    app,
    issuer,
    database,
    transport: (protocol) => createTransport(protocol, baseUrl),
    sql: async (text, values) => (await pool.query(text, values)).rows,
    async close() {
      await server.close(1000);
      await pool.end();
      await app.close();
      await database.drop();
      await removeTempDir(dir);
    },
  };
}

/** A client transport of one protocol: gRPC needs HTTP/2, the others are used over HTTP/1.1 as browsers and curl do. */
export function createTransport(protocol: Protocol, baseUrl: string): Transport {
  switch (protocol) {
    case "connect":
      return createConnectTransport({ baseUrl, httpVersion: "1.1" });
    case "grpc":
      return createGrpcTransport({ baseUrl });
    case "grpc-web":
      return createGrpcWebTransport({ baseUrl, httpVersion: "1.1" });
  }
}

/** Call options carrying a bearer token. */
export function bearer(token: string, extra: Record<string, string> = {}) {
  return { headers: { authorization: `Bearer ${token}`, ...extra } };
}
