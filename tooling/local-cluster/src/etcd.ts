import { join } from "node:path";
import { freePort } from "@folio/test-support/ports";
import { type Supervised, type Supervision, startFailed, startSupervised } from "./supervised.ts";
import { waitFor } from "./wait.ts";

/** A one-member etcd: the store where Patroni nodes hold the leader key. */
export interface Etcd {
  readonly process: Supervised;
  readonly clientPort: number;
  stop(): Promise<void>;
}

/** Starts etcd on loopback ports with its data under `dir`; resolves once it is healthy. */
export async function startEtcd(options: { binary: string; dir: string } & Supervision): Promise<Etcd> {
  const clientPort = await freePort();
  const peerPort = await freePort();
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = startSupervised(
    "etcd",
    options.binary,
    [
      "--name=etcd1",
      `--data-dir=${join(options.dir, "etcd-data")}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=etcd1=${peer}`,
      "--initial-cluster-state=new",
      // Metrics and the v2 API are not used; Patroni speaks the v3 API (its etcd3 section).
      "--log-level=warn",
    ],
    join(options.dir, "etcd.log"),
    { kill: options.kill, detached: options.detached },
  );
  try {
    await waitFor("etcd healthy", async () => ((await fetch(`${client}/health`)).ok ? true : undefined), {
      abort: () => (child.exit === undefined ? undefined : "etcd exited"),
      intervalMs: 200,
      signal: options.signal,
    });
  } catch (error) {
    throw await startFailed(child, error, options.signal);
  }
  return {
    process: child,
    clientPort,
    async stop() {
      await child.stop("SIGTERM", 10_000);
    },
  };
}
