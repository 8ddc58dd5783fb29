import { DEVELOPMENT_TOKEN_PATH } from "./development-token.js";
import type { NodeHandler } from "./listen.js";
import { respond } from "./respond.js";

/** The handlers of the server's paths, each of one job. */
export interface Routes {
  /** CORS: adds its headers for an allowed origin; true when it answered a preflight. */
  readonly cors: (req: Parameters<NodeHandler>[0], res: Parameters<NodeHandler>[1]) => boolean;
  /** `GET /healthz`: liveness. */
  readonly liveness: NodeHandler;
  /** `GET /readyz`: readiness. */
  readonly readiness: NodeHandler;
  /** The public keys of development mode's tokens, `GET /.well-known/jwks.json`; absent otherwise. */
  readonly jwks: object | undefined;
  /** Development mode's OAuth 2.0 token endpoint, `POST /oauth/token`; absent otherwise. */
  readonly developmentToken: NodeHandler | undefined;
  /** The OpenAPI document and docs page: true when it answered the request. */
  readonly docs: (req: Parameters<NodeHandler>[0], res: Parameters<NodeHandler>[1]) => boolean;
  /** The web app at `/` and its routes and files; absent when it is not built. */
  readonly webApp:
    | ((req: Parameters<NodeHandler>[0], res: Parameters<NodeHandler>[1]) => boolean)
    | undefined;
  /** REST, everything under `/api/`. */
  readonly rest: NodeHandler;
  /** Connect, gRPC and gRPC-Web: every other path. */
  readonly connect: NodeHandler;
}

/** Sends each request to the handler of its path. */
export function createDispatch(routes: Routes): NodeHandler {
  const jwksBody = routes.jwks === undefined ? undefined : JSON.stringify(routes.jwks);
  return (req, res) => {
    if (routes.cors(req, res)) return;
    const path = (req.url ?? "/").split("?", 1)[0];
    if (req.method === "GET" && path === "/healthz") {
      routes.liveness(req, res);
      return;
    }
    if (req.method === "GET" && path === "/readyz") {
      routes.readiness(req, res);
      return;
    }
    if (req.method === "GET" && path === "/.well-known/jwks.json" && jwksBody !== undefined) {
      respond(res, 200, "application/jwk-set+json", jwksBody);
      return;
    }
    if (path === DEVELOPMENT_TOKEN_PATH && routes.developmentToken !== undefined) {
      routes.developmentToken(req, res);
      return;
    }
    if (routes.docs(req, res)) return;
    if (routes.webApp?.(req, res)) return;
    if (path?.startsWith("/api/")) {
      routes.rest(req, res);
      return;
    }
    routes.connect(req, res);
  };
}
