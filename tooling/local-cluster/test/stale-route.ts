import { connect, createServer, type Socket } from "node:net";

/**
 * A route to a database server that an operator controls, as a virtual IP or a DNS name: a
 * loopback port whose connections go to the port it points at. Pointing it elsewhere changes where
 * new connections go; open ones stay where they are, as with a moved address.
 */
export interface Route {
  readonly port: number;
  pointAt(port: number): void;
  close(): Promise<void>;
}

/** Opens a route to `target` on a free loopback port. */
export async function openRoute(target: number): Promise<Route> {
  let current = target;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(current, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    pointAt(port) {
      current = port;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
