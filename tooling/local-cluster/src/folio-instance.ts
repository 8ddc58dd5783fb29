import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@folio/test-support/ports";
import { probe } from "./probe.ts";
import { type Exit, type Supervised, type Supervision, startFailed, startSupervised } from "./supervised.ts";
import { waitFor } from "./wait.ts";

/** The server's entry point, built by `turbo run build --filter=@folio/server...`. */
export const SERVER_MAIN = fileURLToPath(new URL("../../../apps/server/dist/main.js", import.meta.url));

/**
 * A fingerprint of the server's build (dist/server.js, which main.js loads). An instance restarted
 * after a rebuild runs other code than those still running, which may not read their page tokens.
 */
export async function serverBuild(): Promise<string> {
  const bundle = await readFile(join(dirname(SERVER_MAIN), "server.js"));
  return createHash("sha256").update(bundle).digest("hex");
}

/** A Folio server process on a loopback port of its own. */
export interface FolioInstance {
  /** `folio1`, `folio2`, ...: its server name in HAProxy too. */
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Where it serves `/metrics` (METRICS_PORT). */
  readonly metricsUrl: string;
  readonly metricsPort: number;
  readonly process: Supervised;
  /** Resident memory now, in bytes (Linux: /proc/<pid>/status). */
  rssBytes(): Promise<number>;
  /** SIGTERM, as an orchestrator stops it: the server drains and exits. */
  stop(timeoutMs?: number): Promise<Exit>;
}

/**
 * Starts `node apps/server/dist/main.js` with `env` and waits until it answers `/healthz`. `ports`
 * are those of an instance it replaces (HAProxy's configuration names them); default: free ones.
 */
export async function startFolioInstance(
  options: {
    readonly name: string;
    readonly dir: string;
    readonly env: Readonly<Record<string, string>>;
    readonly ports?: { readonly port: number; readonly metricsPort: number };
  } & Supervision,
): Promise<FolioInstance> {
  const port = options.ports?.port ?? (await freePort());
  // Each instance serves its metrics on a port of its own (servers without metrics ignore it).
  const metricsPort = options.ports?.metricsPort ?? (await freePort());
  const child = startSupervised(
    "folio",
    process.execPath,
    [SERVER_MAIN],
    join(options.dir, `${options.name}.log`),
    {
      env: {
        PATH: process.env.PATH ?? "",
        ...options.env,
        HOST: "127.0.0.1",
        PORT: String(port),
        METRICS_HOST: "127.0.0.1",
        METRICS_PORT: String(metricsPort),
      },
      kill: options.kill,
      detached: options.detached,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      `${options.name} answering /healthz`,
      async () => ((await probe(`${url}/healthz`)) === 200 ? true : undefined),
      {
        abort: () => (child.exit === undefined ? undefined : "it exited"),
        intervalMs: 200,
        signal: options.signal,
      },
    );
  } catch (error) {
    throw await startFailed(child, error, options.signal);
  }
  return {
    name: options.name,
    port,
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    metricsPort,
    process: child,
    rssBytes: () => rssBytes(child.pid),
    stop: (timeoutMs = 30_000) => child.stop("SIGTERM", timeoutMs),
  };
}

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kilobytes = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kilobytes) * 1024;
}
