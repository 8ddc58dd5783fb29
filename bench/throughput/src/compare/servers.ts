import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@folio/test-support/ports";
import { GO_PEER_BINARY } from "../go-peer/build.ts";
import { grpcUnary } from "./grpc-unary.ts";
import { listProjectsRequest } from "./protobuf.ts";
import { AUDIENCE, ISSUER } from "./tokens.ts";

/** The servers of the comparison. */
export type ServerKind = "folio" | "fastify" | "node-http" | "grpc-js" | "go-grpc" | "go-gateway";

/**
 * What each server runs: Folio's build (or the one `FOLIO_MAIN` names, say a checkout of an
 * earlier commit, to measure before and after a change), the three Node baselines from source
 * (Node strips their types), and the Go peer's binary (go-peer/build.ts builds it) in one of its
 * two modes.
 */
export const SERVER_ENTRY: Readonly<Record<ServerKind, string>> = {
  folio:
    process.env.FOLIO_MAIN ?? fileURLToPath(new URL("../../../../apps/server/dist/main.js", import.meta.url)),
  fastify: fileURLToPath(new URL("../fastify-service.ts", import.meta.url)),
  "node-http": fileURLToPath(new URL("../node-http-service.ts", import.meta.url)),
  "grpc-js": fileURLToPath(new URL("../grpc-js-service.ts", import.meta.url)),
  "go-grpc": GO_PEER_BINARY,
  "go-gateway": GO_PEER_BINARY,
};

/** The servers that answer gRPC only (the others answer an authenticated REST list). */
const GRPC_ONLY: readonly ServerKind[] = ["grpc-js", "go-grpc"];

/** What loads the allocation probe into a Node server: see alloc-probe.ts. */
const ALLOC_PROBE = fileURLToPath(new URL("../alloc-probe.ts", import.meta.url));

/** The program and arguments of a server: Node with its entry, or the Go peer in its mode. */
function command(kind: ServerKind, entry: string, execArgv: readonly string[]): [string, string[]] {
  if (kind === "go-grpc") return [entry, ["grpc"]];
  if (kind === "go-gateway") return [entry, ["rest"]];
  return [process.execPath, [...execArgv, entry]];
}

/** The database, keys and secrets every server gets, and the pool size. */
export interface ServerSetup {
  readonly databaseUrl: string;
  readonly jwksFile: string;
  readonly issuer: string;
  readonly audience: string;
  readonly pageTokenSecret: string;
  readonly poolSize: number;
  /** Where logs (and Folio's DATA_DIR) go. */
  readonly dir: string;
  /** A token with `project:read`, to tell when a server serves. */
  readonly readyToken: string;
}

/** What every server of one run shares: the bench issuer's claims and a page-token key of its own. */
export function serverSetup(
  init: Pick<ServerSetup, "databaseUrl" | "jwksFile" | "poolSize" | "dir" | "readyToken">,
): ServerSetup {
  return {
    ...init,
    issuer: ISSUER,
    audience: AUDIENCE,
    pageTokenSecret: randomBytes(32).toString("base64url"),
  };
}

/** A server in a child process of its own, serving. */
export interface RunningServer {
  readonly kind: ServerKind;
  readonly pid: number;
  readonly url: string;
  readonly logFile: string;
  /** From spawn to the first successful authenticated ListProjects, in milliseconds. */
  readonly startMs: number;
  /** Where its allocation probe answers (alloc-probe.ts, the Go peer's probe.go), when it has one. */
  readonly probeUrl: string | undefined;
  /** SIGTERM, then SIGKILL after 20 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * The environment of a server: Folio's variables, which the baselines read too. Folio's rate
 * limits and metrics listener are off and it logs warnings only (no access log line per request:
 * the baselines write none either); its pool is `DATABASE_POOL_SIZE`.
 */
export function serverEnv(kind: ServerKind, setup: ServerSetup, port: number): Record<string, string> {
  const common = {
    PATH: process.env.PATH ?? "",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: setup.databaseUrl,
    DATABASE_POOL_SIZE: String(setup.poolSize),
    AUTH_JWKS_FILE: setup.jwksFile,
    AUTH_ISSUER: setup.issuer,
    AUTH_AUDIENCE: setup.audience,
    PAGE_TOKEN_SECRET: setup.pageTokenSecret,
  };
  if (kind !== "folio") return common;
  return {
    ...common,
    DATA_DIR: join(setup.dir, "folio-data"),
    RATE_LIMIT_TOKEN_REQUESTS: "0",
    RATE_LIMIT_ORG_REQUESTS: "0",
    METRICS_PORT: "off",
    LOG_LEVEL: "warn",
    SHUTDOWN_GRACE_MS: "0",
  };
}

/**
 * Starts a server and waits until an authenticated ListProjects of one row succeeds (polled every
 * `pollMs`; `GET /api/v1/projects?pageSize=1`, or the gRPC call for the gRPC-only servers), which is
 * also its cold start time. `execArgv` goes to Node (a CPU
 * profile, say). Output goes to `<dir>/<name>.log`.
 */
export async function startServer(
  kind: ServerKind,
  setup: ServerSetup,
  options: {
    readonly name?: string;
    readonly execArgv?: readonly string[];
    readonly pollMs?: number;
    /** Another build of this kind of server to run (a Folio `dist/main.js`). */
    readonly entry?: string;
    /** Serve the allocation probe, on a port of its own (for the benchmark's samples only). */
    readonly probe?: boolean;
    /** More environment, over serverEnv's (an allocator setting such as MALLOC_ARENA_MAX, say). */
    readonly env?: Readonly<Record<string, string>>;
  } = {},
): Promise<RunningServer> {
  const port = await freePort();
  const probePort = options.probe === true ? await freePort() : undefined;
  const logFile = join(setup.dir, `${options.name ?? kind}.log`);
  const fd = openSync(logFile, "a");
  let child: ChildProcess;
  const env = { ...serverEnv(kind, setup, port), ...options.env };
  const execArgv = [...(options.execArgv ?? [])];
  if (probePort !== undefined) {
    env.BENCH_PROBE_PORT = String(probePort);
    execArgv.unshift(`--import=${ALLOC_PROBE}`);
  }
  const [program, args] = command(kind, options.entry ?? SERVER_ENTRY[kind], execArgv);
  const started = performance.now();
  try {
    child = spawn(program, args, { env, stdio: ["ignore", fd, fd] });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let exitedEarly = false;
  void exited.then(() => {
    exitedEarly = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = started + 120_000;
  for (;;) {
    if (exitedEarly) {
      throw new Error(`${kind} exited while starting; the end of ${logFile}:\n${tail(logFile)}`);
    }
    if (await serves(kind, url, setup.readyToken)) break;
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`${kind} did not serve within 120 s; the end of ${logFile}:\n${tail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
  }
  const probeUrl = probePort === undefined ? undefined : `http://127.0.0.1:${probePort}/allocated`;
  return { kind, pid: child.pid ?? -1, url, logFile, startMs: performance.now() - started, probeUrl, stop };
}

/** Whether an authenticated ListProjects of one row succeeds. */
async function serves(kind: ServerKind, url: string, token: string): Promise<boolean> {
  if (!GRPC_ONLY.includes(kind)) return (await listStatus(url, token)) === 200;
  try {
    const reply = await grpcUnary(
      url,
      "/folio.v1.ProjectService/ListProjects",
      { authorization: `Bearer ${token}` },
      listProjectsRequest(1),
    );
    return reply.grpcStatus === "0";
  } catch {
    return false;
  }
}

/** The status of an authenticated ListProjects of one row, or 0 when nothing answers. */
function listStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(
      `${url}/api/v1/projects?pageSize=1`,
      { agent: false, headers: { authorization: `Bearer ${token}` }, timeout: 5000 },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", () => resolve(0));
      },
    );
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(0));
  });
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
