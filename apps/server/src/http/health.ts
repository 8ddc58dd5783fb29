import type { NodeHandler } from "./listen.js";
import { respond } from "./respond.js";

/** `GET /healthz`: liveness, the process serves HTTP. Unauthenticated and cheap. */
export const liveness: NodeHandler = (_req, res) => {
  respond(res, 200, "application/json", '{"status":"ok"}');
};
