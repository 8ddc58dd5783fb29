import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sample } from "./sample.ts";
import { quantile } from "./stats.ts";
import { type LoadOptions, run } from "./wrk.ts";

/** A gRPC call h2load repeats: the same length-prefixed message every time. */
export interface H2loadRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /**
   * Bytes of DATA a successful response carries (5 + the response message), to count gRPC
   * failures: they come with HTTP 200 and the status in trailers, which h2load does not read,
   * but carry no message. Undefined: not checked.
   */
  readonly okDataBytes: number | undefined;
}

let runs = 0;

/**
 * Runs h2load (HTTP/2 cleartext, `connections` connections with one stream in flight each, as the
 * HTTP/1.1 runs have) for `seconds`; latencies from its per-request log file.
 */
export async function runH2load(
  baseUrl: string,
  request: H2loadRequest,
  options: LoadOptions,
): Promise<Sample> {
  const id = ++runs;
  const bodyFile = join(options.dir, `h2load-${id}.bin`);
  const logFile = join(options.dir, `h2load-${id}.log`);
  await writeFile(bodyFile, request.body);
  const output = await run("h2load", [
    "-D",
    `${Math.round(options.seconds * 1000)}ms`,
    "-c",
    String(options.connections),
    "-m",
    "1",
    "-t",
    String(options.threads),
    "-d",
    bodyFile,
    "--log-file",
    logFile,
    ...Object.entries(request.headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    `${baseUrl}${request.path}`,
  ]);
  const counts =
    /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(
      output,
    );
  const finished = /finished in ([\d.]+)(ms|s),/.exec(output);
  const data = /\((\d+)\) data/.exec(output);
  if (counts === null || finished === null || data === null)
    throw new Error(`unexpected h2load output:\n${output}`);
  const done = Number(counts[3]);
  const succeeded = Number(counts[4]);
  const errored = Number(counts[6]) + Number(counts[7]);
  const seconds = Number(finished[1]) / (finished[2] === "ms" ? 1000 : 1);
  // Successful gRPC responses carry okDataBytes each; a trailers-only error carries none.
  const grpcFailures =
    request.okDataBytes === undefined
      ? 0
      : Math.max(0, succeeded - Math.floor(Number(data[1]) / request.okDataBytes));
  const elapsedMs = (await readFile(logFile, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => Number(line.split("\t")[2]) / 1000);
  return {
    requests: done,
    seconds,
    failures: done - succeeded + grpcFailures,
    errors: errored,
    p50Ms: quantile(elapsedMs, 0.5),
    p99Ms: quantile(elapsedMs, 0.99),
  };
}
