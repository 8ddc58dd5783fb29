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
  /**
   * A body per request with a folder name no other request used: JSON, binary protobuf, or binary
   * protobuf in a gRPC-Web frame.
   */
  readonly uniqueFolder?: { readonly encoding: "json" | "proto" | "grpc-web"; readonly prefix: string };
  /**
   * gRPC-Web: a response counts as a failure unless its trailer frame says `grpc-status: 0`
   * (gRPC-Web errors come with HTTP 200, which wrk counts as a success).
   */
  readonly grpcWeb?: boolean;
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
  const [requests, durationUs, status, connect, read, write, timeout, p50Us, p99Us, grpcFailures, bytes] =
    line.split(" ").map(Number);
  return {
    requests: requests ?? 0,
    seconds: (durationUs ?? 0) / 1e6,
    failures: (status ?? 0) + (grpcFailures ?? 0),
    errors: (connect ?? 0) + (read ?? 0) + (write ?? 0) + (timeout ?? 0),
    // wrk reports percentiles of 0 when no response came.
    p50Ms: requests ? (p50Us ?? 0) / 1000 : Number.NaN,
    p99Ms: requests ? (p99Us ?? 0) / 1000 : Number.NaN,
    bytes: bytes ?? Number.NaN,
  };
}

function luaScript(request: WrkRequest): string {
  const lines = [`wrk.method = ${luaString(request.method)}`, `wrk.path = ${luaString(request.path)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
  lines.push(
    // Runs in the main Lua state: each thread's state gets its own number as the global `tid`,
    // and `done` reads the threads' counters.
    "local threads = {}",
    "function setup(thread)",
    "  table.insert(threads, thread)",
    '  thread:set("tid", #threads)',
    "end",
    "grpc_failures = 0",
  );
  if (request.uniqueFolder !== undefined) {
    lines.push(
      `local prefix = ${luaString(request.uniqueFolder.prefix)}`,
      `local encoding = ${luaString(request.uniqueFolder.encoding)}`,
      "local counter = 0",
      "local function varint(n)",
      '  local s = ""',
      "  while n > 127 do s = s .. string.char(n % 128 + 128); n = math.floor(n / 128) end",
      "  return s .. string.char(n)",
      "end",
      "local function frame(message)",
      "  local n = #message",
      "  return string.char(0, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256) .. message",
      "end",
      "function request()",
      "  counter = counter + 1",
      '  local name = prefix .. "-" .. tid .. "-" .. counter',
      "  local body",
      // JSON: the name needs no escaping (letters, digits and dashes); protobuf: field 1, length, bytes.
      `  if encoding == "json" then body = '{"name":"' .. name .. '"}' else body = "\\10" .. varint(#name) .. name end`,
      `  if encoding == "grpc-web" then body = frame(body) end`,
      "  return wrk.format(nil, nil, nil, body)",
      "end",
    );
  }
  if (request.grpcWeb === true) {
    lines.push(
      // A success carries its status in the trailer frame at the end of the body; an error either
      // there or, trailers-only, in the headers with no trailer frame. Only the body's last bytes
      // are searched (the trailer frame), not a 1000-row page.
      "function response(status, headers, body)",
      "  local from = math.max(1, #body - 1024)",
      '  if status == 200 and not string.find(body, "grpc%-status: ?0\\r\\n", from) then grpc_failures = grpc_failures + 1 end',
      "end",
    );
  }
  lines.push(
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    "  local grpc = 0",
    '  for _, thread in ipairs(threads) do grpc = grpc + (thread:get("grpc_failures") or 0) end',
    '  io.write(string.format("WRK_RESULT %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\\n", summary.requests, summary.duration,',
    "    e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99), grpc, summary.bytes))",
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
