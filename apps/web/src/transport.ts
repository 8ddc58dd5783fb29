import type { Transport } from "@connectrpc/connect";
import { createFolioTransport, type RetryOptions } from "@folio/client";
import type { Protocol } from "./connection.js";

/**
 * How the app retries: a person is waiting, so a short wait the server asks for (a database
 * failover, a request in progress) is waited out and a longer one (a rate limit's minute) is
 * shown, with its countdown.
 */
const RETRY: RetryOptions = { maxAttempts: 3, maxDelayMs: 5_000 };

/** A browser transport of the chosen protocol with @folio/client's token, retries and typed errors. */
export function createTransport(protocol: Protocol, baseUrl: string, token: string): Transport {
  return createFolioTransport({ baseUrl, protocol, ...(token === "" ? {} : { token }), retry: RETRY });
}
