// The library service over REST (its google.api.http rules), Connect, gRPC and gRPC-Web, with the
// OpenAPI document of its REST routes at /openapi.json.
import http from "node:http";
import http2 from "node:http2";
import { type ConnectRouter, createConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { createHttpTranscoder, type NodeHandler } from "@folio/http-transcoder";
import { createOpenApiDocument } from "@folio/openapi";
import { LibraryService } from "./gen/library/v1/library_pb.ts";
import { createLibrary } from "./library.ts";

const library = createLibrary();
const routes = (router: ConnectRouter) => router.service(LibraryService, library);

// REST: a request on a route of a google.api.http rule is a call of the router's method.
const router = createConnectRouter();
routes(router);
const rest = createHttpTranscoder({ router });

// Connect, gRPC and gRPC-Web.
const rpc = connectNodeAdapter({ routes });

// The OpenAPI 3.1 document of the REST routes.
const openapi = JSON.stringify(
  createOpenApiDocument({
    services: [LibraryService],
    info: { title: "Library", version: "1.0.0" },
    basePath: "/v1",
  }),
);

const serve: NodeHandler = (req, res) => {
  if (req.url === "/openapi.json") {
    res.setHeader("content-type", "application/json");
    res.end(openapi);
  } else if (req.url?.startsWith("/v1/")) {
    rest(req, res);
  } else {
    rpc(req, res);
  }
};

// The same handler over HTTP/1.1 (REST, Connect, gRPC-Web) and HTTP/2 without TLS (gRPC too).
const port = Number(process.env.PORT ?? 8080);
const h2cPort = Number(process.env.H2C_PORT ?? port + 1);
listen("HTTP/1.1", http.createServer(serve), port);
listen("h2c", http2.createServer(serve), h2cPort);

function listen(name: string, server: http.Server | http2.Http2Server, requested: number): void {
  server.listen(requested, () => {
    const address = server.address();
    const actual = typeof address === "object" && address !== null ? address.port : requested;
    console.log(`${name} on http://localhost:${actual}`);
  });
}
