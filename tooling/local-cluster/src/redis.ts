import net from "node:net";
import { join } from "node:path";
import { freePort } from "@folio/test-support/ports";
import { type Supervised, type Supervision, startFailed, startSupervised } from "./supervised.ts";
import { waitFor } from "./wait.ts";

/** A Redis of the cluster's own, in memory only. */
export interface RedisServer {
  readonly process: Supervised;
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts redis-server on a free loopback port, without persistence, and waits for its PONG. */
export async function startRedis(
  options: { binary: string; dir: string } & Supervision,
): Promise<RedisServer> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = startSupervised(
    "redis-server",
    options.binary,
    [...args, "--dir", options.dir],
    join(options.dir, "redis.log"),
    { kill: options.kill, detached: options.detached },
  );
  try {
    await waitFor("Redis answering PING", () => ping(port), {
      abort: () => (child.exit === undefined ? undefined : "redis-server exited"),
      signal: options.signal,
    });
  } catch (error) {
    throw await startFailed(child, error, options.signal);
  }
  return {
    process: child,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await child.stop("SIGTERM", 10_000);
    },
  };
}

/** True when Redis at `port` answers PING (inline command of the Redis protocol). */
function ping(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.setTimeout(1000, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) socket.end();
    });
    socket.on("close", () => resolve(answer.startsWith("+PONG") ? true : undefined));
    socket.on("error", () => undefined);
  });
}
