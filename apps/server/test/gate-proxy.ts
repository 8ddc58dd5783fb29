// A TCP proxy on loopback that refuses every connection (a reset) until it is opened, then
// forwards each to its target: a database that is down at first and comes up while a client waits.
import { connect, createServer, type Socket } from "node:net";

/** A running gate. */
export interface GateProxy {
  readonly port: number;
  /** Connections refused so far. */
  readonly refused: number;
  /** From now on, connections are forwarded. */
  open(): void;
  close(): Promise<void>;
}

/** Starts a gate, shut, from a free loopback port to `target`. */
export async function startGateProxy(target: { host: string; port: number }): Promise<GateProxy> {
  let open = false;
  let refused = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!open) {
      refused += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    get refused() {
      return refused;
    },
    open() {
      open = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
