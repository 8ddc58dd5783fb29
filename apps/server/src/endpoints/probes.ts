import type { Readiness } from "../health/readiness.js";
import type { NodeHandler } from "../transport/node-handler.js";
import { respond } from "../transport/respond.js";

/** `GET /healthz`: liveness, the process serves HTTP. Unauthenticated and cheap. */
export const liveness: NodeHandler = (_req, res) => {
  res.setHeader("cache-control", "no-store");
  respond(res, 200, "application/json", '{"status":"ok"}');
};

/**
 * `GET /readyz`: readiness, 200 while the database answers with every migration applied and the
 * signing keys are usable, 503 otherwise and from the moment a shutdown begins. Reads the last
 * background check: a probe never reaches the database.
 */
export function readinessHandler(readiness: Pick<Readiness, "state">): NodeHandler {
  return (_req, res) => {
    const state = readiness.state;
    res.setHeader("cache-control", "no-store");
    if (state === "ready") respond(res, 200, "application/json", '{"status":"ready"}');
    else respond(res, 503, "application/json", JSON.stringify({ status: "not ready", reason: state }));
  };
}
