import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpenApiDocument } from "@folio/openapi";
import { buf } from "./buf.ts";
import { API_PATH, protoBreakingChanges } from "./proto-check.ts";
import { compareRest } from "./rest-check.ts";
import { restDocumentOf } from "./rest-document.ts";

/** The baseline's buf image (JSON, without source info: a reviewer reads its diff). */
export const BASELINE_IMAGE = "image.json";
/** The baseline's REST surface: the OpenAPI document of the recorded API. */
export const BASELINE_DOCUMENT = "openapi.json";

/** Where the gate looks: the buf module of the API, and the directory of its baseline. */
export interface ContractPaths {
  /** The directory of buf.yaml, whose `folio/` holds the API. */
  readonly protoDir: string;
  /** The directory of the recorded baseline ({@link BASELINE_IMAGE}, {@link BASELINE_DOCUMENT}). */
  readonly baselineDir: string;
}

/** What the gate found: the incompatible changes against the baseline, proto and REST. */
export interface ContractReport {
  /** buf breaking's findings, one line each. */
  readonly proto: readonly string[];
  /** The REST surface's breaking changes, one line each. */
  readonly rest: readonly string[];
  /** Compatible changes of the REST surface since the baseline (additions, descriptions). */
  readonly compatibleRestChanges: number;
}

/** Whether the report lets the change through. */
export function passes(report: ContractReport): boolean {
  return report.proto.length === 0 && report.rest.length === 0;
}

/** Compares the API in `paths.protoDir` with the baseline in `paths.baselineDir`. */
export async function checkContract(paths: ContractPaths): Promise<ContractReport> {
  const baselineDocument = JSON.parse(
    await readFile(join(paths.baselineDir, BASELINE_DOCUMENT), "utf8"),
  ) as OpenApiDocument;
  const [proto, current] = await Promise.all([
    protoBreakingChanges(paths.protoDir, join(paths.baselineDir, BASELINE_IMAGE)),
    currentRestDocument(paths.protoDir),
  ]);
  const rest = compareRest(baselineDocument, current);
  return { proto, rest: rest.breaking, compatibleRestChanges: rest.compatible };
}

/**
 * Records the API in `paths.protoDir` as the baseline: its buf image and its OpenAPI document,
 * both as formatted JSON so that re-recording shows a reviewer what changed. Resolves with the
 * names of the files whose content changed (none when the baseline already recorded this API).
 */
export async function recordBaseline(paths: ContractPaths): Promise<string[]> {
  const image = await withTempDir(async (dir) => {
    const file = join(dir, BASELINE_IMAGE);
    await buf(["build", ".", "--path", API_PATH, "--exclude-source-info", "-o", file], paths.protoDir);
    return formatJson(JSON.parse(await readFile(file, "utf8")));
  });
  const document = formatJson(await currentRestDocument(paths.protoDir));
  const changed: string[] = [];
  for (const [name, content] of [
    [BASELINE_IMAGE, image],
    [BASELINE_DOCUMENT, document],
  ] as const) {
    const path = join(paths.baselineDir, name);
    if ((await readFile(path, "utf8").catch(() => undefined)) === content) continue;
    await writeFile(path, content);
    changed.push(name);
  }
  return changed;
}

/** The OpenAPI document of the API in `protoDir`, with descriptions from its comments. */
export async function currentRestDocument(protoDir: string): Promise<OpenApiDocument> {
  return withTempDir(async (dir) => {
    const image = join(dir, "api.binpb");
    await buf(["build", ".", "--path", API_PATH, "-o", image], protoDir);
    return restDocumentOf(await readFile(image));
  });
}

async function withTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "folio-contract-"));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
