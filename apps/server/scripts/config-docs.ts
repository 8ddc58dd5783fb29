// Writes docs/configuration.md from the settings declared in src/config/ (each one's name,
// default, accepted values and meaning, listed by src/config/catalogue.ts), or with --check fails
// when the file differs from what they give: `pnpm lint` runs the check, so CI fails on a stale
// file. --file names another file (the tests check a stale copy).
//
//   pnpm --filter @folio/server docs:config          # writes docs/configuration.md
//   node scripts/config-docs.ts --check [--file <path>]
//
// It runs from source, without a build (lint runs before one). Node's type stripping cannot load
// src/ by itself, whose imports name the .js files tsc would emit, so esbuild (the server's build
// tool) bundles the declarations in memory first.
import { readFile, writeFile } from "node:fs/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import type { Setting, SettingGroup } from "../src/config/variables.ts";

const ROOT_URL = new URL("../../../", import.meta.url);
const ROOT = fileURLToPath(ROOT_URL);
const DOC = fileURLToPath(new URL("docs/configuration.md", ROOT_URL));
const CATALOGUE = fileURLToPath(new URL("../src/config/catalogue.ts", import.meta.url));
const COMMAND = "pnpm --filter @folio/server docs:config";

/** The setting groups of src/config/catalogue.ts, bundled by esbuild and imported from memory. */
async function loadSettingGroups(): Promise<readonly SettingGroup[]> {
  const bundle = await build({
    entryPoints: [CATALOGUE],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    logLevel: "silent",
  });
  const code = bundle.outputFiles[0]?.text ?? "";
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
  return module.settingGroups;
}

function renderSetting(setting: Setting): string {
  return [
    `### \`${setting.name}\``,
    "",
    setting.meaning,
    "",
    `Default: ${setting.default}. Values: ${setting.values}.`,
    "",
  ].join("\n");
}

/** docs/configuration.md as the declarations give it. */
function renderConfigurationDoc(groups: readonly SettingGroup[]): string {
  const index = groups.map(
    (group) =>
      `- ${group.title}: ${group.settings.map((s) => `[\`${s.name}\`](#${anchor(s.name)})`).join(", ")}`,
  );
  const sections = groups.map((group) =>
    [`## ${group.title}`, "", ...group.settings.map(renderSetting)].join("\n"),
  );
  return [
    `<!-- Generated from apps/server/src/config/ by \`${COMMAND}\`: edit the declarations there. -->`,
    "",
    "# Configuration",
    "",
    "All configuration is by environment variable. An invalid value stops start-up with one line",
    "naming the variable (`folio: invalid configuration: PORT must be ...`).",
    "",
    "Each variable is declared once, in `apps/server/src/config/` (its name, default, accepted values",
    "and meaning): the server reads it by that declaration, and this page is generated from it.",
    "",
    ...index,
    "",
    ...sections,
  ].join("\n");
}

/** GitHub's anchor of a heading that is the name in code: lower case, without punctuation. */
function anchor(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_ -]/g, "");
}

const { values: args } = parseArgs({
  options: { check: { type: "boolean", default: false }, file: { type: "string", default: DOC } },
});
const expected = renderConfigurationDoc(await loadSettingGroups());
if (!args.check) {
  await writeFile(args.file, expected);
} else {
  const actual = await readFile(args.file, "utf8").catch(() => "");
  if (actual !== expected) {
    process.stderr.write(
      `${relative(ROOT, args.file)} is stale: it does not match the settings declared in apps/server/src/config/. ` +
        `Run \`${COMMAND}\` and commit the result.\n`,
    );
    process.exitCode = 1;
  }
}
