import http2 from "node:http2";
import { grpcFrame } from "./protobuf.ts";
import type { Sample } from "./sample.ts";
import { quantile } from "./stats.ts";

/** A unary gRPC call whose request message changes with every call (a new folder name, say). */
export interface GrpcCall {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The request message of the n-th call of a connection. */
  readonly message: (connection: number, n: number) => Uint8Array;
}

/**
 * A small gRPC load client on `node:http2` (h2load cannot vary the body): `connections` HTTP/2
 * connections, each a loop of one call at a time, for `seconds`. A call succeeds with HTTP 200
 * and `grpc-status: 0` (in the trailers, or the headers of a trailers-only response). It runs in
 * the comparison's own process, so it shares the machine's CPUs with the server like wrk does.
 */
export async function runGrpcCalls(
  baseUrl: string,
  call: GrpcCall,
  options: { readonly seconds: number; readonly connections: number },
): Promise<Sample> {
  const latencies: number[] = [];
  let failures = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const connection = async (index: number) => {
    const session = http2.connect(baseUrl);
    session.on("error", () => undefined);
    try {
      for (let n = 0; performance.now() < deadline; n++) {
        const begin = performance.now();
        const outcome = await unary(session, call.path, call.headers, grpcFrame(call.message(index, n)));
        if (outcome === "error") {
          errors++;
          if (session.destroyed || session.closed) return;
          continue;
        }
        latencies.push(performance.now() - begin);
        if (outcome !== "ok") failures++;
      }
    } finally {
      session.close();
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, i) => connection(i)));
  return {
    requests: latencies.length,
    seconds: (performance.now() - started) / 1000,
    failures,
    errors,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

/** One call: "ok", "failed" (a response that is not OK), or "error" (no response). */
function unary(
  session: http2.ClientHttp2Session,
  path: string,
  headers: Readonly<Record<string, string>>,
  frame: Uint8Array,
): Promise<"ok" | "failed" | "error"> {
  return new Promise((resolve) => {
    let status: string | undefined;
    let httpStatus = 0;
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    stream.on("response", (responseHeaders) => {
      httpStatus = Number(responseHeaders[":status"]);
      const inHeaders = responseHeaders["grpc-status"];
      if (typeof inHeaders === "string") status = inHeaders;
    });
    stream.on("trailers", (trailers) => {
      const inTrailers = trailers["grpc-status"];
      if (typeof inTrailers === "string") status = inTrailers;
    });
    stream.on("data", () => undefined);
    stream.on("error", () => resolve("error"));
    stream.on("close", () => {
      if (httpStatus === 0) resolve("error");
      else resolve(httpStatus === 200 && status === "0" ? "ok" : "failed");
    });
    stream.end(frame);
  });
}
