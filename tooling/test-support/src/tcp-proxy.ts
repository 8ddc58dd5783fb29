/**
 * A TCP proxy on loopback that a test controls: put between a client and a server, it forwards
 * bytes until told to cut, then holds every connection open and delivers nothing in either
 * direction (a network partition: the bytes wait, as TCP would retransmit them), until healed.
 * Bytes are held per connection and delivered in order; nothing is lost.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running proxy. */
export interface TcpProxy {
  readonly port: number;
  /** From now on nothing is delivered, and new connections hang. */
  cut(): void;
  /** Delivers again, what waited included. */
  heal(): void;
  close(): Promise<void>;
}

/** Starts a proxy from a free loopback port to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  /** Bytes that arrived while cut, per destination, delivered in order on heal. */
  const held = new Map<Socket, Buffer[]>();
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => {
      const waiting = held.get(to);
      if (cut || waiting !== undefined) held.set(to, [...(waiting ?? []), chunk]);
      else to.write(chunk);
    });
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => {
        sockets.delete(socket);
        held.delete(socket);
      });
    }
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    cut() {
      cut = true;
    },
    heal() {
      cut = false;
      for (const [socket, chunks] of held) {
        held.delete(socket);
        for (const chunk of chunks) socket.write(chunk);
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
