import { once } from "node:events";
import type { Server } from "node:http";

/**
 * Listens on the configured address, says where on stdout (`listening http://host:port`), and on
 * SIGTERM or SIGINT closes the server and then `close` (the pool), and exits 0, so that a
 * `--cpu-prof` profile is written.
 */
export async function serveUntilSignal(
  server: Server,
  address: { readonly host: string; readonly port: number },
  close: () => Promise<void>,
): Promise<void> {
  server.listen(address.port, address.host);
  await once(server, "listening");
  const bound = server.address();
  const port = typeof bound === "object" && bound !== null ? bound.port : address.port;
  console.log(`listening http://${address.host}:${port}`);
  const stop = () => {
    server.close();
    server.closeAllConnections();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
