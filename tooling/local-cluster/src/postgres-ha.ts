import { spawnSync } from "node:child_process";
import { chmod, chown, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "@folio/test-support/ports";
import pg from "pg";
import { type Etcd, startEtcd } from "./etcd.ts";
import { readServerStats, type ServerStats } from "./haproxy.ts";
import { type PatroniNode, startPatroniNode } from "./patroni.ts";
import { type Supervised, type Supervision, startSupervised } from "./supervised.ts";
import { renderTemplate } from "./template.ts";
import { waitFor } from "./wait.ts";

/** The Debian binaries the highly available PostgreSQL runs. */
export interface HaBinaries {
  readonly patroni: string;
  readonly etcd: string;
  readonly haproxy: string;
  /** PostgreSQL's bin directory (initdb, pg_ctl, postgres), e.g. /usr/lib/postgresql/15/bin. */
  readonly postgresBinDir: string;
}

/** A member as Patroni's GET /cluster tells it. */
export interface Member {
  readonly name: string;
  /** `leader`, `sync_standby` or `replica`. */
  readonly role: string;
  /** `running` (`streaming` on newer Patroni), `starting`, `stopped`, ... */
  readonly state: string;
  readonly lag?: number | string;
}

/** Three PostgreSQL nodes under Patroni, etcd, and HAProxy's primary and replica ports. */
export interface PostgresHA {
  readonly nodes: readonly PatroniNode[];
  readonly etcd: Etcd;
  readonly haproxy: Supervised;
  /** HAProxy's statistics page; proxies `postgres_primary` and `postgres_replicas`. */
  readonly statsUrl: string;
  /** A database's URL through HAProxy's primary port (checked on GET /primary). */
  primaryUrl(database: string): string;
  /** A database's URL through HAProxy's replica port (checked on GET /replica). */
  replicaUrl(database: string): string;
  /** The members as the live nodes' Patroni sees them. */
  members(): Promise<Member[]>;
  /** The node that holds the leader key now. */
  leader(): Promise<PatroniNode>;
  /** HAProxy's view of the nodes, per port. */
  stats(): Promise<{ primary: Map<string, ServerStats>; replicas: Map<string, ServerStats> }>;
  /**
   * Waits for one leader, `replicas` streaming standbys (one synchronous) and HAProxy routing to
   * them; an abort of `signal` ends the wait.
   */
  waitHealthy(replicas: number, timeoutMs?: number, signal?: AbortSignal): Promise<void>;
  /** A planned switchover to the synchronous standby (Patroni's POST /switchover); resolves with both names. */
  switchover(): Promise<{ from: string; to: string }>;
  stop(): Promise<void>;
}

/** Starts etcd, three Patroni nodes (PostgreSQL as the `postgres` user) and HAProxy, and waits until healthy. */
export async function startPostgresHA(
  options: { binaries: HaBinaries; dir: string } & Supervision,
): Promise<PostgresHA> {
  const { binaries, dir } = options;
  const { uid, gid } = postgresUser();
  const pgDir = join(dir, "pg");
  // The `postgres` user passes through the run directory (mkdtemp's 0700) to its own.
  await chmod(dir, 0o711);
  await mkdir(pgDir);
  await chown(pgDir, uid, gid);
  await chmod(pgDir, 0o700);
  const started: { stop(): Promise<void> }[] = [];
  try {
    const etcd = await startEtcd({
      binary: binaries.etcd,
      dir,
      signal: options.signal,
      kill: options.kill,
      detached: options.detached,
    });
    started.push(etcd);
    const nodes: PatroniNode[] = [];
    for (const name of ["pg1", "pg2", "pg3"]) {
      const node = await startPatroniNode({
        binary: binaries.patroni,
        name,
        dir,
        pgDir,
        binDir: binaries.postgresBinDir,
        etcdPort: etcd.clientPort,
        pgPort: await freePort(),
        restPort: await freePort(),
        uid,
        gid,
        kill: options.kill,
        detached: options.detached,
      });
      nodes.push(node);
      started.push(node);
    }
    const primaryPort = await freePort();
    const replicaPort = await freePort();
    const statsPort = await freePort();
    const servers = nodes.map(
      (node) => `    server ${node.name} 127.0.0.1:${node.pgPort} check port ${node.restPort}`,
    );
    const config = join(dir, "haproxy-postgres.cfg");
    await writeFile(
      config,
      await renderTemplate("haproxy-postgres.cfg", {
        PRIMARY_ADDRESS: `127.0.0.1:${primaryPort}`,
        REPLICA_ADDRESS: `127.0.0.1:${replicaPort}`,
        STATS_ADDRESS: `127.0.0.1:${statsPort}`,
        PRIMARY_SERVERS: servers.join("\n"),
        REPLICA_SERVERS: servers.join("\n"),
      }),
    );
    const check = spawnSync(binaries.haproxy, ["-c", "-q", "-f", config], { encoding: "utf8" });
    if (check.status !== 0)
      throw new Error(`haproxy -c -f ${config} failed:\n${check.stdout}${check.stderr}`);
    const haproxy = startSupervised(
      "haproxy-postgres",
      binaries.haproxy,
      ["-db", "-f", config],
      join(dir, "haproxy-postgres.log"),
      { kill: options.kill, detached: options.detached },
    );
    started.push({ stop: async () => void (await haproxy.stop("SIGUSR1", 10_000)) });
    const statsUrl = `http://127.0.0.1:${statsPort}/`;
    const url = (port: number, database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;

    const members = async (): Promise<Member[]> => {
      for (const node of nodes) {
        if (node.process.exit !== undefined) continue;
        try {
          const response = await fetch(`${node.restUrl}/cluster`, { signal: AbortSignal.timeout(2_000) });
          if (response.ok) return ((await response.json()) as { members: Member[] }).members;
        } catch {
          // this node's API is down: ask the next
        }
      }
      throw new Error("no Patroni REST API answers");
    };
    const stats = async () => ({
      primary: await readServerStats(statsUrl, "postgres_primary"),
      replicas: await readServerStats(statsUrl, "postgres_replicas"),
    });
    const ha: PostgresHA = {
      nodes,
      etcd,
      haproxy,
      statsUrl,
      primaryUrl: (database) => url(primaryPort, database),
      replicaUrl: (database) => url(replicaPort, database),
      members,
      async leader() {
        const name = (await members()).find((member) => member.role === "leader")?.name;
        const node = nodes.find((candidate) => candidate.name === name);
        if (node === undefined) throw new Error("no leader now");
        return node;
      },
      stats,
      async waitHealthy(replicas, timeoutMs = 120_000, signal) {
        await waitFor(
          `a leader, ${replicas} streaming replicas (one synchronous) and HAProxy routing to them`,
          async () => {
            const now = await members();
            const leader = now.find((member) => member.role === "leader" && member.state === "running");
            const standbys = now.filter(
              (member) =>
                (member.role === "replica" || member.role === "sync_standby") &&
                (member.state === "running" || member.state === "streaming"),
            );
            if (leader === undefined || standbys.length < replicas) return undefined;
            if (!standbys.some((member) => member.role === "sync_standby")) return undefined;
            const streaming = await countStreaming(url(primaryPort, "postgres"));
            if (streaming < replicas) return undefined;
            const { primary, replicas: replicaStats } = await stats();
            const up = (map: Map<string, ServerStats>) =>
              [...map.values()].filter((s) => s.status === "UP").length;
            return up(primary) === 1 && up(replicaStats) >= replicas ? true : undefined;
          },
          {
            timeoutMs,
            intervalMs: 250,
            signal,
            abort: () => {
              if (haproxy.exit !== undefined) return "haproxy exited";
              return nodes.every((node) => node.process.exit !== undefined)
                ? "every Patroni exited"
                : undefined;
            },
          },
        );
      },
      async switchover() {
        const from = await ha.leader();
        const response = await fetch(`${from.restUrl}/switchover`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ leader: from.name }),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`switchover: HTTP ${response.status}: ${text}`);
        const to = await waitFor("a new leader", async () => {
          const leader = (await members()).find((member) => member.role === "leader");
          return leader !== undefined && leader.name !== from.name ? leader.name : undefined;
        });
        return { from: from.name, to };
      },
      async stop() {
        for (const part of started.reverse()) await part.stop().catch(() => undefined);
      },
    };
    try {
      await ha.waitHealthy(2, undefined, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const logs = await Promise.all(
        nodes.map(async (node) => `${node.name}:\n${await node.process.tail(15)}`),
      );
      throw new Error(`${(error as Error).message}\n${logs.join("\n")}`, { cause: error });
    }
    return ha;
  } catch (error) {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    throw error;
  }
}

/** Standbys streaming from the server at `url`. */
async function countStreaming(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'",
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0) {
    throw new Error("no `postgres` OS user: install Debian's postgresql package");
  }
  return { uid, gid };
}
