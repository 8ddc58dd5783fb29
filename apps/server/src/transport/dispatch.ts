import { DEVELOPMENT_TOKEN_PATH } from "@folio/api-document";
import { splitRequestTarget } from "@folio/http-transcoder";
import { rpcProtocolOf } from "@folio/rpc-protocols";
import { refuseUnlessLoopback } from "./loopback-host.js";
import type { NodeHandler, NodeRequest, NodeResponse } from "./node-handler.js";
import type { ReportingHandler } from "./request-report.js";
import { respond } from "./respond.js";

/** The handlers of the server's paths, each of one job. */
export interface Routes {
  /** CORS: adds its headers for an allowed origin; true when it answered a preflight. */
  readonly cors: (req: NodeRequest, res: NodeResponse) => boolean;
  /** `GET /healthz`: liveness. */
  readonly liveness: NodeHandler;
  /** `GET /readyz`: readiness. */
  readonly readiness: NodeHandler;
  /**
   * The public keys of development mode's tokens, `GET /.well-known/jwks.json`, served to loopback
   * names only; absent otherwise.
   */
  readonly jwks: object | undefined;
  /** Development mode's OAuth 2.0 token endpoint, `POST /oauth/token`, for loopback names only; absent otherwise. */
  readonly developmentToken: NodeHandler | undefined;
  /** The OpenAPI document and docs page: true when it answered the request. */
  readonly docs: (req: NodeRequest, res: NodeResponse) => boolean;
  /** The web app at `/` and its routes and files; absent when it is not built. */
  readonly webApp: ((req: NodeRequest, res: NodeResponse) => boolean) | undefined;
  /** REST, everything under `/api/`. */
  readonly rest: ReportingHandler;
  /** Connect, gRPC and gRPC-Web: every other path. */
  readonly connect: ReportingHandler;
}

/**
 * Sends each request to the handler of its path, and reports which protocol it speaks, or which of
 * the server's own routes it reached (whose status is their answer's code). REST and RPC requests
 * get the report to hand on to the layer that answers them.
 */
export function createDispatch(routes: Routes): ReportingHandler {
  const jwksBody = routes.jwks === undefined ? undefined : JSON.stringify(routes.jwks);
  return (req, res, report) => {
    const route = (name: string) => report.routed("http", name);
    if (routes.cors(req, res)) {
      route("cors");
      return;
    }
    const path = splitRequestTarget(req.url).path;
    if (req.method === "GET" && path === "/healthz") {
      route("healthz");
      routes.liveness(req, res);
      return;
    }
    if (req.method === "GET" && path === "/readyz") {
      route("readyz");
      routes.readiness(req, res);
      return;
    }
    if (req.method === "GET" && path === "/.well-known/jwks.json" && jwksBody !== undefined) {
      route("jwks");
      if (refuseUnlessLoopback(req, res, report.requestId)) return;
      respond(res, 200, "application/jwk-set+json", jwksBody);
      return;
    }
    if (path === DEVELOPMENT_TOKEN_PATH && routes.developmentToken !== undefined) {
      route("dev-token");
      if (refuseUnlessLoopback(req, res, report.requestId)) return;
      routes.developmentToken(req, res);
      return;
    }
    if (routes.docs(req, res)) {
      route("docs");
      return;
    }
    if (routes.webApp?.(req, res)) {
      route("web");
      return;
    }
    if ((req.method === "GET" || req.method === "HEAD") && path === "/favicon.ico") {
      // Browsers ask for it on pages without an icon of their own: a JSON response of the API,
      // /healthz. The web app's icon, as it is: browsers go by its type (image/svg+xml), not by
      // the name. Without the web app, no icon, and no error either.
      route("web");
      if (routes.webApp?.(withUrl(req, FAVICON_SVG), res)) return;
      res.statusCode = 204;
      res.setHeader("cache-control", "public, max-age=86400");
      res.end();
      return;
    }
    if (path?.startsWith("/api/")) {
      report.routed("rest");
      routes.rest(req, res, report);
      return;
    }
    report.routed(rpcProtocolOf(req));
    routes.connect(req, res, report);
  };
}

/** The web app's icon (apps/web/public). */
const FAVICON_SVG = "/favicon.svg";

/** The same request, for another path: what a handler reads of it is the URL, method and headers. */
function withUrl<Req extends NodeRequest>(req: Req, url: string): Req {
  return Object.create(req, { url: { value: url } }) as Req;
}
