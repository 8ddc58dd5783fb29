import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTestIssuer, type TestIssuer } from "@folio/test-support/tokens";
import { type FolioInstance, startFolioInstance } from "./folio-instance.ts";
import { type HAProxy, startHAProxy } from "./haproxy.ts";
import { probe } from "./probe.ts";
import type { Supervision } from "./supervised.ts";

/** What every instance of a cluster shares to accept the same tokens and page tokens. */
export interface FleetSecrets {
  /** Signs the access tokens the instances accept. */
  readonly issuer: TestIssuer;
  /** The issuer's public keys, for `AUTH_JWKS_FILE`. */
  readonly jwksFile: string;
  /** The same key everywhere: a page token from one instance works on every other. */
  readonly pageTokenSecret: string;
}

/** Creates a cluster's token issuer, writes its JWKS under `dir`, and picks a page-token key. */
export async function createFleetSecrets(dir: string): Promise<FleetSecrets> {
  const issuer = await createTestIssuer();
  const jwksFile = join(dir, "jwks.json");
  await writeFile(jwksFile, JSON.stringify(issuer.jwks));
  return { issuer, jwksFile, pageTokenSecret: randomBytes(32).toString("base64url") };
}

/** Options of {@link startFleet}. */
export interface FleetOptions extends Supervision {
  readonly count: number;
  /** Where each instance keeps its log and `DATA_DIR` (`<name>-data`). */
  readonly dir: string;
  /** The environment of the instance named `folio1`, `folio2`, ... */
  readonly env: (name: string) => Readonly<Record<string, string>>;
  readonly haproxyBinary: string;
  /** The path HAProxy checks (default: `/readyz`, or `/healthz` on a server without readiness). */
  readonly healthPath?: string;
  /** HAProxy's frontend port (default: a free one). */
  readonly port?: number;
}

/** Folio instances and the HAProxy in front of them. */
export interface Fleet {
  readonly instances: readonly FolioInstance[];
  readonly haproxy: HAProxy;
  readonly healthPath: string;
}

/**
 * Starts the instances all at once, as an orchestrator starts replicas (their migrations meet at
 * the advisory lock), then HAProxy in front of them. What it started is pushed onto `cleanups`,
 * also when a start fails, so the caller's clean-up stops it.
 */
export async function startFleet(
  options: FleetOptions,
  cleanups: (() => Promise<unknown>)[],
): Promise<Fleet> {
  const names = Array.from({ length: options.count }, (_, i) => `folio${i + 1}`);
  const supervision = { signal: options.signal, kill: options.kill, detached: options.detached };
  for (const name of names) await mkdir(join(options.dir, `${name}-data`));
  const started = await Promise.allSettled(
    names.map((name) =>
      startFolioInstance({
        name,
        dir: options.dir,
        env: options.env(name),
        ...supervision,
      }),
    ),
  );
  const instances = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  for (const instance of instances) cleanups.push(() => instance.stop());
  const failed = started.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;

  const healthPath = options.healthPath ?? (await chooseHealthPath((instances[0] as FolioInstance).url));
  const haproxy = await startHAProxy({
    binary: options.haproxyBinary,
    dir: options.dir,
    backends: instances.map((instance) => ({ name: instance.name, port: instance.port })),
    healthPath,
    ...supervision,
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  cleanups.push(() => haproxy.stop());
  return { instances, haproxy, healthPath };
}

/** `/readyz` when the server has readiness, else `/healthz` (a server older than readiness answers 404). */
async function chooseHealthPath(instanceUrl: string): Promise<string> {
  return (await probe(`${instanceUrl}/readyz`)) === 404 ? "/healthz" : "/readyz";
}
