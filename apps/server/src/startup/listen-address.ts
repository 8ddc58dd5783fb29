import net from "node:net";
import { ConfigError, StartupError } from "../config/variables.js";

/** The variables that name an address to listen on (HOST and PORT, or METRICS_HOST and METRICS_PORT). */
export interface AddressVariables {
  readonly host: string;
  readonly port: string;
}

/**
 * Listens on `host:port` and closes again at once, so that an address the server could not listen
 * on stops the start before anything changes (the database migrated) rather than after.
 */
export async function checkListenAddress(
  host: string,
  port: number,
  variables: AddressVariables,
): Promise<void> {
  const server = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    throw listenFailure(error, host, port, variables);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A failed listen on `host:port` as an error naming the variable at fault; other errors as they are. */
export function listenFailure(
  error: unknown,
  host: string,
  port: number,
  variables: AddressVariables,
): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = (error as Error).message;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_FAIL":
      return new ConfigError(variables.host, `cannot be resolved to an address ("${host}"): ${reason}`);
    case "EADDRNOTAVAIL":
      return new ConfigError(variables.host, `is not an address of this machine ("${host}"): ${reason}`);
    case "EADDRINUSE":
      return new StartupError(variables.port, `${port} is in use on ${host}: another process listens there`);
    case "EACCES":
      return new StartupError(
        variables.port,
        `${port} on ${host} needs privileges this process lacks: ${reason}`,
      );
    default:
      return error;
  }
}
