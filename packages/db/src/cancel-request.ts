import net from "node:net";
import type pg from "pg";

/** The code that makes a startup packet a CancelRequest (PostgreSQL protocol 3.0). */
const CANCEL_REQUEST_CODE = 80_877_102;

/** What a connected `pg` client knows of its connection: where it goes, and the key its server gave it. */
interface ClientKey {
  readonly host: string;
  readonly port: number;
  /** From the server's BackendKeyData; null before it is connected. */
  readonly processID: number | null;
  readonly secretKey: number | null;
}

/**
 * Asks the server of `client` to cancel the statement the client runs now, as psql's Ctrl-C does:
 * a CancelRequest with the client's key, on a connection of its own. Resolves once the server has
 * closed that connection (it answers nothing), or after `timeoutMs` (a server that ignores cancel
 * requests, as the embedded one, keeps it open); never rejects.
 */
export function sendCancelRequest(client: pg.ClientBase, timeoutMs: number): Promise<void> {
  const { host, port, processID, secretKey } = client as unknown as ClientKey;
  if (processID === null || secretKey === null) return Promise.resolve();
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  return new Promise((resolve) => {
    // A host that is a directory is where the server's Unix socket is, as for libpq.
    const socket = host.startsWith("/") ? net.connect(`${host}/.s.PGSQL.${port}`) : net.connect(port, host);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    // Left open until the server closes it, as libpq does: PgBouncer 1.18 exits on a cancel
    // connection its client closed while it was passing the request on.
    socket.once("connect", () => socket.write(request));
    // Read (there is nothing to read), so that the server's end is seen and the socket closes.
    socket.resume();
    socket.once("close", done);
    socket.once("error", done);
  });
}
