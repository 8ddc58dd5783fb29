import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabaseOnServer } from "@folio/test-support";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { DockerfileParser, Env } from "dockerfile-ast";
import { validate as lintDockerfile } from "dockerfile-utils";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SERVER_MAIN } from "../src/folio-instance.ts";

// No Docker engine or Kubernetes cluster runs here: the artifacts are linted and checked against
// the Kubernetes API's schemas (kubernetes-models) and against each other.

const root = new URL("../../../", import.meta.url);
const read = (path: string) => readFile(new URL(path, root), "utf8");
// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain YAML documents.
const manifest = async (name: string): Promise<any> => parse(await read(`deploy/kubernetes/${name}`));

/** A container's environment entry, as the manifests write it. */
interface EnvEntry {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

/** A container of a pod template, as the manifests write it. */
// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain YAML documents.
type Container = { readonly name: string; readonly env?: EnvEntry[] } & Record<string, any>;

/**
 * The settings the server declares, each with its default: docs/configuration.md, which
 * `node scripts/config-docs.ts` writes from apps/server/src/config/ and `lint` keeps equal to it.
 */
async function declaredSettings(): Promise<Map<string, string | undefined>> {
  const doc = await read("docs/configuration.md");
  const settings = new Map<string, string | undefined>();
  for (const section of doc.split(/^### /m).slice(1)) {
    const name = /^`([A-Z0-9_]+)`$/m.exec(section)?.[1];
    if (name !== undefined) settings.set(name, /^Default: `([^`]*)`/m.exec(section)?.[1]);
  }
  return settings;
}

/** The containers of every workload in deploy/kubernetes/*.yaml (the Deployment's, the migrate Job's). */
async function workloadContainers(): Promise<{ file: string; container: Container }[]> {
  const found: { file: string; container: Container }[] = [];
  const files = (await readdir(new URL("deploy/kubernetes/", root))).filter((file) => file.endsWith(".yaml"));
  for (const file of files.sort()) {
    const containers: Container[] = (await manifest(file)).spec?.template?.spec?.containers ?? [];
    for (const container of containers) found.push({ file, container });
  }
  expect(found.map(({ file }) => file).sort()).toEqual(["deployment.yaml", "migrate-job.yaml"]);
  return found;
}

/** A container's plain values by name (secret references left out). */
function plainEnv(container: Container): Record<string, string> {
  return Object.fromEntries(
    (container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]),
  );
}

describe("Kubernetes manifests", () => {
  it("are valid objects of the Kubernetes API, and kustomization.yaml lists them", async () => {
    const models = {
      "migrate-job.yaml": Job,
      "deployment.yaml": Deployment,
      "service.yaml": Service,
      "pdb.yaml": PodDisruptionBudget,
      "hpa.yaml": HorizontalPodAutoscaler,
      "secret.example.yaml": Secret,
    };
    for (const [file, Model] of Object.entries(models)) {
      const object = await manifest(file);
      expect(() => new Model(object).validate(), file).not.toThrow();
    }
    const kustomization = await manifest("kustomization.yaml");
    // The Secret is the operator's to create, from their secret store: the example is not applied.
    expect(kustomization.resources).toEqual(
      Object.keys(models).filter((file) => file !== "secret.example.yaml"),
    );
  });

  it("refuses a manifest with a wrong type or without a required field (the schema check can fail)", async () => {
    const wrongType = await manifest("deployment.yaml");
    wrongType.spec.replicas = "three";
    expect(() => new Deployment(wrongType).validate()).toThrow();
    const unnamed = await manifest("deployment.yaml");
    delete unnamed.spec.template.spec.containers[0].name;
    expect(() => new Deployment(unnamed).validate()).toThrow();
  });

  it("set only variables the server declares (a misspelled one would be ignored silently)", async () => {
    const declared = await declaredSettings();
    expect(declared.size).toBeGreaterThan(50);
    for (const { file, container } of await workloadContainers()) {
      const names = (container.env ?? []).map((entry) => entry.name);
      expect(
        names.filter((name) => !declared.has(name)),
        `${file}: ${container.name}`,
      ).toEqual([]);
      expect(new Set(names).size, `${file}: a variable set twice`).toBe(names.length);
    }
  });

  it("read the secrets from the Secret `folio`, only keys the example Secret has, optional where it may leave one empty", async () => {
    const example = (await manifest("secret.example.yaml")).stringData as Record<string, string>;
    const read = new Set<string>();
    for (const { file, container } of await workloadContainers()) {
      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef;
        if (ref === undefined) continue;
        expect(ref.name, `${file}: ${entry.name}`).toBe("folio");
        expect(Object.keys(example), `${file}: ${entry.name}`).toContain(ref.key);
        // An empty value means "not used": the variable must then be allowed to be absent.
        if (example[ref.key] === "") expect(ref.optional, `${file}: ${entry.name}`).toBe(true);
        read.add(ref.key);
      }
    }
    // And every key of the example is read by something.
    expect([...read].sort()).toEqual(Object.keys(example).sort());
    const [container] = (await manifest("deployment.yaml")).spec.template.spec.containers;
    const secrets = (container.env as EnvEntry[]).filter((e) => e.valueFrom?.secretKeyRef !== undefined);
    expect(secrets.map((e) => e.name).sort()).toEqual(
      ["DATABASE_READ_URL", "DATABASE_URL", "PAGE_TOKEN_SECRET", "REDIS_URL"].sort(),
    );
  });

  it("listen, expose and probe on the server's ports and paths: PORT, METRICS_PORT, /healthz, /readyz", async () => {
    const declared = await declaredSettings();
    expect(declared.get("PORT")).toBe("8080");
    expect(declared.get("METRICS_PORT")).toBe("9464");
    const deployment = await manifest("deployment.yaml");
    const [container] = deployment.spec.template.spec.containers;
    const env = plainEnv(container);
    const port = (name: string) =>
      container.ports.find((p: { name: string }) => p.name === name)?.containerPort as number | undefined;
    // What the server listens on (the variable as set, or its default) is what the pod declares.
    expect(port("http")).toBe(Number(env.PORT ?? declared.get("PORT")));
    expect(port("metrics")).toBe(Number(env.METRICS_PORT ?? declared.get("METRICS_PORT")));
    expect(container.ports.map((p: { name: string }) => p.name).sort()).toEqual(["http", "metrics"]);
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.startupProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });

    // Prometheus finds the metrics port on the pod; the Service carries the API port only.
    expect(deployment.spec.template.metadata.annotations).toMatchObject({
      "prometheus.io/scrape": "true",
      "prometheus.io/port": String(port("metrics")),
      "prometheus.io/path": "/metrics",
    });
    const service = await manifest("service.yaml");
    expect(service.spec.ports.map((p: { targetPort: string }) => p.targetPort)).toEqual(["http"]);

    // The image listens where the manifests expect it to, on every interface.
    const dockerfile = await read("Dockerfile");
    expect(/^\s+PORT=(\d+)/m.exec(dockerfile)?.[1]).toBe(String(port("http")));
    expect(/^\s+METRICS_PORT=(\d+)/m.exec(dockerfile)?.[1]).toBe(String(port("metrics")));
    expect(dockerfile).toMatch(/^\s+HOST=0\.0\.0\.0/m);
    expect(dockerfile).toMatch(/^\s+METRICS_HOST=0\.0\.0\.0/m);
    expect(dockerfile).toContain(`EXPOSE ${port("http")} ${port("metrics")}`);
  });

  it("give the pod time to drain: terminationGracePeriodSeconds ≥ preStop sleep + SHUTDOWN_GRACE_MS + SHUTDOWN_TIMEOUT_MS + 1 s", async () => {
    const declared = await declaredSettings();
    const pod = (await manifest("deployment.yaml")).spec.template.spec;
    const [container] = pod.containers;
    const env = plainEnv(container);
    const ms = (name: string) => Number(env[name] ?? declared.get(name));
    const [sleep, seconds] = container.lifecycle.preStop.exec.command;
    expect(sleep).toBe("sleep");
    // The sleep is the server's grace: proxies that only watch endpoints stop sending within it.
    expect(Number(seconds) * 1000).toBe(ms("SHUTDOWN_GRACE_MS"));
    // The server exits within SHUTDOWN_GRACE_MS + SHUTDOWN_TIMEOUT_MS + 1 s of SIGTERM, which
    // comes after the preStop hook; past the period the kubelet kills the container.
    const needed = Number(seconds) + (ms("SHUTDOWN_GRACE_MS") + ms("SHUTDOWN_TIMEOUT_MS") + 1_000) / 1000;
    expect(Number.isFinite(needed)).toBe(true);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(needed);
  });

  it("run non-root on a read-only root, with memory requested and limited", async () => {
    for (const file of ["deployment.yaml", "migrate-job.yaml"]) {
      const pod = (await manifest(file)).spec.template.spec;
      const [container] = pod.containers;
      expect(pod.securityContext.runAsNonRoot, file).toBe(true);
      expect(pod.securityContext.runAsUser, file).toBeGreaterThan(0);
      expect(container.securityContext, file).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      // The image's DATA_DIR and Node's compile cache are under /tmp, the one writable mount.
      expect(container.volumeMounts, file).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
      expect(container.resources.requests, file).toHaveProperty("memory");
      expect(container.resources.limits, file).toHaveProperty("memory");
    }
  });

  it("select the Deployment's pods from the Service and the PodDisruptionBudget, and scale it with the HPA", async () => {
    const deployment = await manifest("deployment.yaml");
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect((await manifest("service.yaml")).spec.selector).toEqual(labels);
    expect((await manifest("pdb.yaml")).spec.selector.matchLabels).toEqual(labels);
    // The migrate Job's pods are not selected by them.
    expect((await manifest("migrate-job.yaml")).spec.template.metadata.labels).not.toMatchObject(labels);
    const hpa = await manifest("hpa.yaml");
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });
});

describe("Dockerfile", () => {
  it("lints clean and builds a non-root image of the pruned server bundle with a health check", async () => {
    const text = await read("Dockerfile");
    expect(lintDockerfile(text)).toEqual([]);
    const instructions = DockerfileParser.parse(text).getInstructions();
    const froms = instructions.filter((i) => i.getKeyword() === "FROM").map((i) => i.getArgumentsContent());
    expect(froms).toEqual(["node:24-bookworm-slim AS build", "node:24-bookworm-slim"]);
    const finalStage = instructions.slice(instructions.findLastIndex((i) => i.getKeyword() === "FROM"));
    const keyword = (name: string) =>
      finalStage.filter((i) => i.getKeyword() === name).map((i) => i.getArgumentsContent() ?? "");
    expect(keyword("USER")).toEqual(["node"]);
    expect(keyword("HEALTHCHECK").join(" ")).toContain("/healthz");
    expect(text).toMatch(/^COPY --from=build \/out \/app$/m);
    expect(keyword("CMD")).toEqual(['["node", "dist/main.js"]']);
    const runs = instructions.filter((i) => i.getKeyword() === "RUN").map((i) => i.getArgumentsContent());
    expect(runs).toContain("pnpm --filter @folio/server deploy --legacy --prod /out");

    const ignored = (await read(".dockerignore")).split("\n");
    for (const entry of [".git", "**/node_modules", "**/dist", ".data"]) expect(ignored).toContain(entry);
  });
});

/** The ENV of the Dockerfile's final stage: what every container of the image starts with. */
async function imageEnv(): Promise<Record<string, string>> {
  const instructions = DockerfileParser.parse(await read("Dockerfile")).getInstructions();
  const finalStage = instructions.slice(instructions.findLastIndex((i) => i.getKeyword() === "FROM"));
  const env: Record<string, string> = {};
  for (const instruction of finalStage) {
    if (!(instruction instanceof Env)) continue;
    for (const property of instruction.getProperties()) env[property.getName()] = property.getValue() ?? "";
  }
  return env;
}

/** Runs `node dist/main.js ...args` with exactly `env`, from a directory of its own; resolves with its end. */
function runServerMain(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_MAIN, ...args], {
      env,
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the migrate Job", () => {
  const serverUrl = process.env.DATABASE_URL;
  it.skipIf(serverUrl === undefined)(
    `applies the migrations with only the environment the Job and the image give it${serverUrl === undefined ? " (skipped: needs a PostgreSQL server: set DATABASE_URL)" : ""}`,
    async () => {
      const database = await createDatabaseOnServer(serverUrl as string, "folio_migrate_job");
      const workdir = await mkdtemp(join(tmpdir(), "folio-migrate-job-"));
      try {
        const [container] = (await manifest("migrate-job.yaml")).spec.template.spec.containers as Container[];
        // The Secret's values, as the Job reads them: only database-url may be needed.
        const secret: Record<string, string> = { "database-url": database.url };
        const env: Record<string, string> = { PATH: process.env.PATH ?? "", ...(await imageEnv()) };
        for (const entry of container?.env ?? []) {
          const key = entry.valueFrom?.secretKeyRef?.key;
          const value = entry.value ?? (key === undefined ? undefined : secret[key]);
          expect(value, `${entry.name}: a value or a Secret key the Job may read`).toBeDefined();
          env[entry.name] = value as string;
        }
        // The image runs in production mode, where serving demands a JWKS and more.
        expect(env.NODE_ENV).toBe("production");
        const [node, main, ...args] = container?.command ?? [];
        expect([node, main]).toEqual(["node", "dist/main.js"]);
        expect(args).toEqual(["migrate"]);

        const applied = await runServerMain(args, env, workdir);
        expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: "" });
        expect(applied.stdout).toMatch(/"msg":"migrations applied"/);
        const check = await runServerMain([...args, "--check"], env, workdir);
        expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
      } finally {
        await removeTempDir(workdir);
        await database.drop();
      }
    },
  );
});
