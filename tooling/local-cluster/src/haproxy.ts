import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "@folio/test-support/ports";
import { type Supervised, type Supervision, startFailed, startSupervised } from "./supervised.ts";
import { renderTemplate } from "./template.ts";
import { waitFor } from "./wait.ts";

/** A backend server of HAProxy: a Folio instance. */
export interface Backend {
  readonly name: string;
  readonly port: number;
}

/** One server's line of HAProxy's statistics. */
export interface ServerStats {
  /** `UP`, `DOWN`, `MAINT`, `UP 1/2` (going down), `DOWN 1/2` (going up), ... */
  readonly status: string;
  /** Requests (HTTP mode: streams) HAProxy sent it so far. */
  readonly sessionsTotal: number;
  /** Result of the last health check, e.g. `L7OK`, `L7STS`, `L4CON`. */
  readonly checkStatus: string;
}

/** A running HAProxy. */
export interface HAProxy {
  readonly process: Supervised;
  /** The frontend: every protocol of Folio. */
  readonly url: string;
  /** The statistics page (`;csv` for the machine-readable form). */
  readonly statsUrl: string;
  /** The backend servers' statistics, by server name. */
  serverStats(): Promise<Map<string, ServerStats>>;
  /** Soft stop: stops listening, lets connections finish (hard-stop-after bounds it). */
  stop(): Promise<void>;
}

/** Options of {@link startHAProxy}. */
export interface HAProxyOptions extends Supervision {
  readonly binary: string;
  readonly dir: string;
  readonly backends: readonly Backend[];
  /** The health-check path, `/readyz`. */
  readonly healthPath: string;
  /** Port of the frontend; default: a free one. */
  readonly port?: number;
}

/** Writes haproxy.cfg from the template, checks it, starts HAProxy and waits until every server is UP. */
export async function startHAProxy(options: HAProxyOptions): Promise<HAProxy> {
  const port = options.port ?? (await freePort());
  const statsPort = await freePort();
  const servers = options.backends.map((backend) => `    server ${backend.name} 127.0.0.1:${backend.port}`);
  const config = join(options.dir, "haproxy.cfg");
  await writeFile(
    config,
    await renderTemplate("haproxy.cfg", {
      FRONTEND_ADDRESS: `127.0.0.1:${port}`,
      STATS_ADDRESS: `127.0.0.1:${statsPort}`,
      HEALTH_PATH: options.healthPath,
      SERVERS: servers.join("\n"),
    }),
  );
  const check = spawnSync(options.binary, ["-c", "-q", "-f", config], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy -c -f ${config} failed:\n${check.stdout}${check.stderr}`);

  // -db: in the foreground, so that it is supervised like the other processes.
  const child = startSupervised(
    "haproxy",
    options.binary,
    ["-db", "-f", config],
    join(options.dir, "haproxy.log"),
    { kill: options.kill, detached: options.detached },
  );
  const statsUrl = `http://127.0.0.1:${statsPort}/`;
  const serverStats = () => readServerStats(statsUrl);
  try {
    await waitFor(
      "HAProxy with every server UP",
      async () => {
        const stats = await serverStats();
        return options.backends.every((backend) => stats.get(backend.name)?.status === "UP")
          ? true
          : undefined;
      },
      { abort: () => (child.exit === undefined ? undefined : "haproxy exited"), signal: options.signal },
    );
  } catch (error) {
    throw await startFailed(child, error, options.signal);
  }
  return {
    process: child,
    url: `http://127.0.0.1:${port}`,
    statsUrl,
    serverStats,
    async stop() {
      await child.stop("SIGUSR1", 20_000);
    },
  };
}

/** Reads the statistics page's CSV and keeps the servers of the proxy `proxyName` (default `folio`). */
export async function readServerStats(
  statsUrl: string,
  proxyName = "folio",
): Promise<Map<string, ServerStats>> {
  const response = await fetch(`${statsUrl};csv`);
  if (!response.ok) throw new Error(`HAProxy statistics: HTTP ${response.status}`);
  const [header, ...rows] = (await response.text()).trim().split("\n");
  const columns = (header ?? "").replace(/^# /, "").split(",");
  const column = (name: string) => columns.indexOf(name);
  const stats = new Map<string, ServerStats>();
  for (const row of rows) {
    const cells = row.split(",");
    const proxy = cells[column("pxname")];
    const server = cells[column("svname")];
    if (proxy !== proxyName || server === undefined || server === "FRONTEND" || server === "BACKEND")
      continue;
    stats.set(server, {
      status: cells[column("status")] ?? "",
      sessionsTotal: Number(cells[column("stot")] ?? 0),
      checkStatus: cells[column("check_status")] ?? "",
    });
  }
  return stats;
}
