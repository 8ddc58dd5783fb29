import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { apiScopeNames } from "@folio/api-document";
import { createTestIssuer, type TestIssuer } from "@folio/test-support/tokens";
import { type FolioInstance, serverBuild, startFolioInstance } from "./folio-instance.ts";
import { type HAProxy, startHAProxy } from "./haproxy.ts";
import { probe } from "./probe.ts";
import type { Supervision } from "./supervised.ts";
import { waitFor } from "./wait.ts";

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
  // Every scope of the API: the token the CLI prints reaches every method.
  const issuer = await createTestIssuer({ scopes: apiScopeNames });
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
  /** The {@link serverBuild} the instances started from. */
  readonly build: string;
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
  const build = await serverBuild();
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
  return { instances, haproxy, healthPath, build };
}

/** `/readyz` when the server has readiness, else `/healthz` (a server older than readiness answers 404). */
async function chooseHealthPath(instanceUrl: string): Promise<string> {
  return (await probe(`${instanceUrl}/readyz`)) === 404 ? "/healthz" : "/readyz";
}

/** Options of {@link replaceInstance}. */
export interface ReplaceOptions extends Supervision {
  readonly dir: string;
  /** The whole environment of the instance that takes its place. */
  readonly env: Readonly<Record<string, string>>;
  readonly haproxy: HAProxy;
  /** The {@link serverBuild} of the fleet: a restart on another one is refused. */
  readonly build?: string;
  /** Called with the new instance as soon as it runs, before HAProxy has it UP (to stop it with the rest). */
  readonly started?: (instance: FolioInstance) => void;
}

/**
 * Replaces `old` as a rolling update replaces a pod, on the same ports (HAProxy's configuration
 * names them): SIGTERM, so that it is not ready and HAProxy takes it out while it still serves,
 * then drains and exits; then the server again with `env`. Resolves with the new instance once
 * HAProxy has it UP, as an orchestrator waits for readiness before it replaces the next one.
 */
export async function replaceInstance(old: FolioInstance, options: ReplaceOptions): Promise<FolioInstance> {
  // The working tree's build may have been rebuilt since the fleet started: refused before the
  // instance is stopped.
  if (options.build !== undefined && (await serverBuild()) !== options.build) {
    throw new Error(
      `apps/server/dist changed since the instances started (rebuilt meanwhile): ${old.name} would restart on another build than the others run`,
    );
  }
  const status = async () => (await options.haproxy.serverStats()).get(old.name)?.status ?? "";
  const exited = old.stop();
  await waitFor(
    `HAProxy taking ${old.name} out`,
    async () => ((await status()).startsWith("DOWN") ? true : undefined),
    { signal: options.signal },
  );
  const exit = await exited;
  if (exit.code !== 0) {
    throw new Error(
      `${old.name} exited with ${exit.signal ?? `code ${exit.code}`} on SIGTERM; the end of ${old.process.logFile}:\n${await old.process.tail()}`,
    );
  }
  const instance = await startFolioInstance({
    name: old.name,
    dir: options.dir,
    env: options.env,
    ports: { port: old.port, metricsPort: old.metricsPort },
    signal: options.signal,
    kill: options.kill,
    detached: options.detached,
  });
  options.started?.(instance);
  await waitFor(
    `HAProxy having the new ${old.name} UP`,
    async () => ((await status()) === "UP" ? true : undefined),
    {
      abort: () => (instance.process.exit === undefined ? undefined : "it exited"),
      signal: options.signal,
    },
  );
  return instance;
}

/** Restarts of a fleet's instances; see {@link instanceRestarts}. */
export interface InstanceRestarts {
  /** Replaces the instance `name` with one whose environment is the fleet's changed by `env`. */
  restart(name: string, env: Readonly<Record<string, string>>): Promise<FolioInstance>;
  /** Abandons the restarts under way (what they started is stopped) and waits for them; refuses new ones. */
  stop(): Promise<void>;
}

/**
 * Restarts of the instances of `instances` with {@link replaceInstance}, each new instance put in
 * its predecessor's place in the array as soon as it runs, so that stopping what the array holds
 * stops what runs.
 */
export function instanceRestarts(
  instances: FolioInstance[],
  options: Omit<ReplaceOptions, "env" | "started"> & {
    readonly env: (name: string) => Readonly<Record<string, string>>;
  },
): InstanceRestarts {
  const under = new Set<Promise<unknown>>();
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, ...(options.signal === undefined ? [] : [options.signal])]);
  return {
    async restart(name, env) {
      if (stopped.signal.aborted) throw new Error(`cannot restart ${name}: the fleet is stopping`);
      const index = instances.findIndex((instance) => instance.name === name);
      const old = instances[index];
      if (old === undefined) throw new Error(`no instance named ${name}`);
      const restart = replaceInstance(old, {
        ...options,
        env: { ...options.env(name), ...env },
        started: (instance) => {
          instances[index] = instance;
        },
        signal,
      });
      under.add(restart);
      try {
        return await restart;
      } finally {
        under.delete(restart);
      }
    },
    async stop() {
      stopped.abort(new Error("the fleet is stopping"));
      await Promise.allSettled(under);
    },
  };
}
