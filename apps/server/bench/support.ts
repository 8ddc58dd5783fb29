// Shared by the server benchmarks: a throwaway database on real PostgreSQL, a token issuer, the
// server's process started from its build (`node dist/main.js`), and the statistics printed.
//
// Run the benchmarks with Node 24, which strips the types of .ts files itself, after
// `pnpm exec turbo run build --filter=@folio/server...`.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { apiScopeNames } from "@folio/api-document";
import { createDatabaseOnServer } from "@folio/test-support";
import { freePort } from "@folio/test-support/ports";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";

const SERVER_MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** The PostgreSQL server the benchmark databases are created on. */
export const SERVER_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** A database of the benchmark's own, `folio_bench_<random>`, dropped by `drop()`. */
export function createBenchDatabase() {
  return createDatabaseOnServer(SERVER_URL, "folio_bench");
}

/** The server's environment: the issuer's JWKS in a file, rate limits off, a fixed page-token key. */
export interface ServerEnvironment {
  readonly env: Record<string, string>;
  readonly issuer: TestIssuer;
  readonly dir: string;
}

export async function serverEnvironment(
  databaseUrl: string,
  extra: Record<string, string> = {},
): Promise<ServerEnvironment> {
  const issuer = await createTestIssuer({ scopes: apiScopeNames });
  const dir = await mkdtemp(join(tmpdir(), "folio-bench-"));
  const jwksFile = join(dir, "jwks.json");
  await writeFile(jwksFile, JSON.stringify(issuer.jwks));
  return {
    issuer,
    dir,
    env: {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dir,
      HOST: "127.0.0.1",
      AUTH_JWKS_FILE: jwksFile,
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_AUDIENCE: TEST_AUDIENCE,
      PAGE_TOKEN_SECRET: "folio-benchmark-page-token-secret-0123456789",
      RATE_LIMIT_ORG_REQUESTS: "0",
      RATE_LIMIT_TOKEN_REQUESTS: "0",
      METRICS_PORT: "0",
      SHUTDOWN_GRACE_MS: "0",
      LOG_LEVEL: "silent",
      ...extra,
    },
  };
}

/** The server's process, listening on a random loopback port. */
export interface RunningServer {
  readonly baseUrl: string;
  /** Stops it as an orchestrator would (SIGTERM) and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * Starts `node dist/main.js` (which applies the migrations) with `env` on a free loopback port, in a
 * process of its own so that the clients do not share its event loop; `execArgv` goes to node (e.g.
 * `--cpu-prof`). Resolves once `/healthz` answers.
 */
export async function startServer(
  env: Record<string, string>,
  execArgv: string[] = [],
): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [...execArgv, SERVER_MAIN], {
    env: { PATH: process.env.PATH ?? "", ...env, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = once(child, "exit");
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  while (
    !(await fetch(`${baseUrl}/healthz`).then(
      (response) => response.ok,
      () => false,
    ))
  ) {
    if (!running) throw new Error(`the server exited with ${child.exitCode} before it served`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl,
    async close() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Node's version, the CPUs and the load average, printed with the figures. */
export function machine(): string {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return `Node ${process.version}, ${availableParallelism()} CPUs, load average ${load}`;
}

/** One HTTP/1.1 response, read to its last byte. */
export interface Response {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** From sending the request to the last byte of the body. */
  readonly ms: number;
}

/** Sends one request on `agent` (keep-alive) and reads the whole response. */
export function send(
  agent: http.Agent,
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Response> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname + url.search,
        headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The target of a `Link: <...>; rel="next"` header, if the response has one. */
export function nextLink(headers: http.IncomingHttpHeaders): string | undefined {
  const link = headers.link;
  const values = Array.isArray(link) ? link : link === undefined ? [] : [link];
  for (const value of values) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(value);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/** Latency figures of a sample, in milliseconds. */
export interface Summary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    mean: sorted.length === 0 ? 0 : sum / sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1] ?? 0,
  };
}

/** Prints a Markdown table, numbers right-aligned (as docs/benchmarks.md has them). */
export function printTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const cells = rows.map((row) =>
    row.map((cell) =>
      typeof cell !== "number" ? cell : Number.isInteger(cell) ? String(cell) : cell.toFixed(2),
    ),
  );
  const widths = header.map((title, i) =>
    Math.max(title.length, 3, ...cells.map((row) => (row[i] ?? "").length)),
  );
  const numeric = header.map((_, i) => rows.every((row) => typeof row[i] === "number" || row[i] === ""));
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(" | ")} |`;
  console.log(line(header));
  console.log(
    `| ${widths.map((w, i) => (numeric[i] ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`,
  );
  for (const row of cells) console.log(line(row));
}
