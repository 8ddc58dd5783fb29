import { DEFAULT_ALGORITHMS } from "@folio/auth";
import { METRICS_HOST, METRICS_PORT } from "../config/observability.js";
import { HOST, PORT } from "../config/server.js";
import type { Config } from "../env.js";
import { checkAlgorithmsSupported } from "./algorithms.js";
import { checkJwksFile } from "./jwks-file.js";
import { checkListenAddress } from "./listen-address.js";

/**
 * Checks what the configuration names outside the process, before anything changes (no migration
 * applied, nothing listening): the addresses to listen on, the algorithms and the JWKS file to
 * verify tokens with. Throws a ConfigError or StartupError naming the variable. Redis and the
 * database are reached next, by createApp, Redis first: see app.ts.
 */
export async function checkStartup(config: Config): Promise<void> {
  await checkListenAddress(config.host, config.port, { host: HOST.name, port: PORT.name });
  if (config.metrics !== undefined) {
    await checkListenAddress(config.metrics.host, config.metrics.port, {
      host: METRICS_HOST.name,
      port: METRICS_PORT.name,
    });
  }
  const algorithms = config.auth.algorithms ?? DEFAULT_ALGORITHMS;
  await checkAlgorithmsSupported(algorithms);
  if ("jwksFile" in config.auth) await checkJwksFile(config.auth.jwksFile, algorithms);
}
