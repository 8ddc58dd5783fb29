import { readFile } from "node:fs/promises";
import { DockerfileParser } from "dockerfile-ast";
import { validate as lintDockerfile } from "dockerfile-utils";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// No Docker engine or Kubernetes cluster runs here: the artifacts are linted and checked against
// the Kubernetes API's schemas (kubernetes-models) and against each other.

const root = new URL("../../../", import.meta.url);
const read = (path: string) => readFile(new URL(path, root), "utf8");
// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain YAML documents.
const manifest = async (name: string): Promise<any> => parse(await read(`deploy/kubernetes/${name}`));

/** The variables of docs/configuration.md (generated from the server's declarations of them). */
async function documentedVariables(): Promise<Set<string>> {
  const doc = await read("docs/configuration.md");
  return new Set([...doc.matchAll(/^### `([A-Z0-9_]+)`$/gm)].map((match) => match[1] as string));
}

describe("Kubernetes manifests", () => {
  it("are valid objects of the Kubernetes API, and kustomization.yaml lists them", async () => {
    const models = {
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
    expect(kustomization.resources).toEqual(["deployment.yaml", "service.yaml", "pdb.yaml", "hpa.yaml"]);
  });

  it("refuses a manifest with a wrong type or without a required field (the schema check can fail)", async () => {
    const wrongType = await manifest("deployment.yaml");
    wrongType.spec.replicas = "three";
    expect(() => new Deployment(wrongType).validate()).toThrow();
    const unnamed = await manifest("deployment.yaml");
    delete unnamed.spec.template.spec.containers[0].name;
    expect(() => new Deployment(unnamed).validate()).toThrow();
  });

  it("probe /healthz and /readyz, drain for as long as the server's grace, run non-root on a read-only root", async () => {
    const deployment = await manifest("deployment.yaml");
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    const env = Object.fromEntries(
      container.env.map((entry: { name: string; value?: string; valueFrom?: unknown }) => [
        entry.name,
        entry.value ?? entry.valueFrom,
      ]),
    );
    const http = container.ports.find((port: { name: string }) => port.name === "http");
    expect(String(http.containerPort)).toBe(env.PORT);
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.startupProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });

    const [sleep, seconds] = container.lifecycle.preStop.exec.command;
    expect(sleep).toBe("sleep");
    expect(Number(seconds) * 1000).toBe(Number(env.SHUTDOWN_GRACE_MS));
    // The server exits within SHUTDOWN_GRACE_MS + SHUTDOWN_TIMEOUT_MS + 1 s of SIGTERM.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(
      Number(seconds) + (Number(env.SHUTDOWN_GRACE_MS) + Number(env.SHUTDOWN_TIMEOUT_MS) + 1_000) / 1000,
    );

    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    // The image's DATA_DIR is under /tmp, the one writable mount.
    expect(container.volumeMounts).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
    expect(container.resources.requests).toHaveProperty("memory");
    expect(container.resources.limits).toHaveProperty("memory");

    for (const secret of ["DATABASE_URL", "PAGE_TOKEN_SECRET", "REDIS_URL"]) {
      expect(env[secret], secret).toEqual({ secretKeyRef: { name: "folio", key: expect.any(String) } });
    }
    const example = await manifest("secret.example.yaml");
    for (const entry of container.env.filter((e: { valueFrom?: unknown }) => e.valueFrom !== undefined)) {
      expect(Object.keys(example.stringData)).toContain(entry.valueFrom.secretKeyRef.key);
    }

    // Every variable it sets is one the server reads (a misspelled one would be ignored silently).
    const documented = await documentedVariables();
    expect(Object.keys(env).filter((name) => !documented.has(name))).toEqual([]);
  });

  it("select the Deployment's pods from the Service and the PodDisruptionBudget, and scale it with the HPA", async () => {
    const deployment = await manifest("deployment.yaml");
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect((await manifest("service.yaml")).spec.selector).toEqual(labels);
    expect((await manifest("pdb.yaml")).spec.selector.matchLabels).toEqual(labels);
    const hpa = await manifest("hpa.yaml");
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    const service = await manifest("service.yaml");
    expect(service.spec.ports.map((port: { targetPort: string }) => port.targetPort)).toEqual([
      "http",
      "metrics",
    ]);
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
