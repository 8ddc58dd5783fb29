// The real server process, `node dist/main.js`, on a fresh database: for tests of what only the
// process shows (signals, exit codes, its own memory).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { apiScopeNames } from "@folio/api-document";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** A running `node dist/main.js`. */
export interface ServerProcess {
  readonly baseUrl: string;
  readonly metricsUrl: string;
  /** Every log line it wrote so far, parsed. */
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  readonly issuer: TestIssuer;
  readonly database: TestDatabase;
  readonly child: ChildProcess;
  /**
   * Runs a full garbage collection in the process, through its inspector (started with
   * `{ inspector: true }`): what is left in memory afterwards is what the server holds on to.
   */
  collectGarbage(): Promise<void>;
  /** Kills it (SIGKILL) if it still runs, then drops its database and removes its directory. */
  stop(): Promise<void>;
}

/** Options of {@link startServerProcess}. */
export interface ServerProcessOptions {
  /** Opens the Node inspector on a free loopback port, for {@link ServerProcess.collectGarbage}. */
  readonly inspector?: boolean;
  /** The entry point to run; default: this workspace's dist/main.js. */
  readonly main?: string;
}

/** Starts `node dist/main.js` on a fresh database with PORT=0 and METRICS_PORT=0; resolves once it listens. */
export async function startServerProcess(
  env: Record<string, string>,
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const database = await createTestDatabase();
  const issuer = await createTestIssuer({ scopes: apiScopeNames });
  const dir = await mkdtemp(join(tmpdir(), "folio-process-"));
  await writeFile(join(dir, "jwks.json"), JSON.stringify(issuer.jwks));
  const entry = options.main ?? main;
  const child = spawn(process.execPath, [...(options.inspector ? ["--inspect=127.0.0.1:0"] : []), entry], {
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
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Never left behind: a test that times out (or a worker that is torn down) ends it too.
  const orphaned = () => child.kill("SIGKILL");
  process.once("exit", orphaned);
  void exited.then(() => process.off("exit", orphaned));
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      await database.drop();
      await removeTempDir(dir);
    })();
    return stopping;
  };

  // stderr: passed on, but for the inspector's own lines, of which the first gives its address.
  let inspectorUrl: (url: string) => void = () => {};
  const inspector = new Promise<string>((resolve) => {
    inspectorUrl = resolve;
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (text) => {
    const listening = /^Debugger listening on (ws:\/\/\S+)/.exec(text)?.[1];
    if (listening !== undefined) inspectorUrl(listening);
    else if (!/^(Debugger |For help, see|Waiting for the debugger)/.test(text)) {
      process.stderr.write(`${text}\n`);
    }
  });
  const lines: Record<string, unknown>[] = [];
  const urls = new Promise<{ baseUrl: string; metricsUrl: string }>((resolve, reject) => {
    let metricsUrl = "";
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      if (line.msg === "metrics listening") metricsUrl = String(line.url);
      if (line.msg === "listening") resolve({ baseUrl: String(line.url), metricsUrl });
    });
    void exited.then((code) => reject(new Error(`the server exited with ${code} before listening`)));
    // Starting takes seconds, tens of them on a loaded machine with an embedded database.
    setTimeout(() => reject(new Error("the server did not listen within 150 s")), 150_000).unref();
  });
  try {
    const collectGarbage = async () => {
      if (!options.inspector) throw new Error("start the process with { inspector: true }");
      await inspectorCommand(await inspector, "HeapProfiler.collectGarbage");
    };
    return { ...(await urls), lines, exited, issuer, database, child, collectGarbage, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Sends one command of the Chrome DevTools Protocol to an inspector; resolves with its answer. */
async function inspectorCommand(url: string, method: string): Promise<void> {
  const socket = new WebSocket(url);
  try {
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error(`cannot reach the inspector at ${url}`));
    });
    const answered = new Promise<void>((resolve) => {
      socket.onmessage = (event) => {
        if ((JSON.parse(String(event.data)) as { id?: number }).id === 1) resolve();
      };
    });
    socket.send(JSON.stringify({ id: 1, method }));
    await answered;
  } finally {
    socket.close();
  }
}

/** The resident set size of a process, in bytes, from /proc (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kB = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kB === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kB) * 1024;
}
