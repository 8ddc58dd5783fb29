import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sample } from "./sample.ts";

/** What wrk sends: one fixed request, or (with `uniqueFolder`) a CreateFolder with a new name each time. */
export interface WrkRequest {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** A body per request with a folder name no other request used: JSON or binary protobuf. */
  readonly uniqueFolder?: { readonly encoding: "json" | "proto"; readonly prefix: string };
}

export interface LoadOptions {
  readonly seconds: number;
  readonly connections: number;
  readonly threads: number;
  /** Where the script goes. */
  readonly dir: string;
}

let scripts = 0;

/**
 * Runs wrk (HTTP/1.1, keep-alive, `connections` connections each with one request in flight) for
 * `seconds` against `baseUrl`, with a Lua script that builds the request and reports the
 * figures (its `done` hook prints them; wrk counts responses outside 2xx/3xx as status errors).
 */
export async function runWrk(baseUrl: string, request: WrkRequest, options: LoadOptions): Promise<Sample> {
  const script = join(options.dir, `wrk-${++scripts}.lua`);
  await writeFile(script, luaScript(request));
  const output = await run("wrk", [
    "-t",
    String(options.threads),
    "-c",
    String(options.connections),
    "-d",
    `${options.seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    `${baseUrl}${request.path}`,
  ]);
  const line = /^WRK_RESULT (.*)$/m.exec(output)?.[1];
  if (line === undefined) throw new Error(`wrk printed no result:\n${output}`);
  const [requests, durationUs, status, connect, read, write, timeout, p50Us, p99Us] = line
    .split(" ")
    .map(Number);
  return {
    requests: requests ?? 0,
    seconds: (durationUs ?? 0) / 1e6,
    failures: status ?? 0,
    errors: (connect ?? 0) + (read ?? 0) + (write ?? 0) + (timeout ?? 0),
    // wrk reports percentiles of 0 when no response came.
    p50Ms: requests ? (p50Us ?? 0) / 1000 : Number.NaN,
    p99Ms: requests ? (p99Us ?? 0) / 1000 : Number.NaN,
  };
}

function luaScript(request: WrkRequest): string {
  const lines = [`wrk.method = ${luaString(request.method)}`, `wrk.path = ${luaString(request.path)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
  if (request.uniqueFolder !== undefined) {
    lines.push(
      `local prefix = ${luaString(request.uniqueFolder.prefix)}`,
      `local encoding = ${luaString(request.uniqueFolder.encoding)}`,
      "local threads = 0",
      "local counter = 0",
      // Runs in the main Lua state: each thread's state gets its own number as the global `tid`.
      "function setup(thread)",
      "  threads = threads + 1",
      '  thread:set("tid", threads)',
      "end",
      "local function varint(n)",
      '  local s = ""',
      "  while n > 127 do s = s .. string.char(n % 128 + 128); n = math.floor(n / 128) end",
      "  return s .. string.char(n)",
      "end",
      "function request()",
      "  counter = counter + 1",
      '  local name = prefix .. "-" .. tid .. "-" .. counter',
      "  local body",
      // JSON: the name needs no escaping (letters, digits and dashes); protobuf: field 1, length, bytes.
      `  if encoding == "json" then body = '{"name":"' .. name .. '"}' else body = "\\10" .. varint(#name) .. name end`,
      "  return wrk.format(nil, nil, nil, body)",
      "end",
    );
  }
  lines.push(
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format("WRK_RESULT %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\\n", summary.requests, summary.duration,',
    "    e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99)))",
    "end",
  );
  return `${lines.join("\n")}\n`;
}

/** A Lua string literal of text or bytes: printable ASCII as is, every other byte as `\ddd`. */
function luaString(value: string | Uint8Array): string {
  const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  let out = '"';
  for (const byte of bytes) {
    out +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\${String(byte).padStart(3, "0")}`;
  }
  return `${out}"`;
}

/** Runs a program to its end and gives its stdout; fails with its output when it fails. */
export function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${out}${err}`));
    });
  });
}
