import type { ReplicaOptions } from "@folio/db";
import type { Logger } from "pino";
import type { ReadReplicaConfig } from "../config/read-replica.js";

/** The replica pool's options, logging each change of where listings are read. */
export function replicaOptions(config: ReadReplicaConfig, logger: Logger): ReplicaOptions {
  return {
    url: config.url,
    poolSize: config.poolSize,
    acquireTimeoutMs: config.acquireTimeoutMs,
    maxLagMs: config.maxLagMs,
    onRouteChange: (route, reason) => {
      if (route === "replica") logger.info({ route, reason }, "listings read from the replicas");
      else logger.warn({ route, reason }, "listings read from the primary");
    },
  };
}
