import http from "node:http";
import type { AddressInfo } from "node:net";
import { splitRequestTarget } from "@folio/http-transcoder";
import type { Registry } from "prom-client";

/** The metrics listener: where it is, and how to stop it. */
export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus' text format) on a port of its own, apart from the API: it
 * stays off the load balancer, needs no token, and a scrape never waits behind API traffic.
 */
export async function serveMetrics(
  registry: Registry,
  options: { host: string; port: number },
): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || splitRequestTarget(req.url).path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are at GET /metrics\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (error: unknown) =>
        res
          .writeHead(500, { "content-type": "text/plain" })
          .end(`collecting metrics failed: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
