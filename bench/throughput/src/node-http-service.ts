// The baseline on bare node:http + pg: Folio's two REST operations with Folio's semantics
// (baseline/service.ts), routed and read by hand. Configured by environment variables, as Folio:
// HOST, PORT, DATABASE_URL, DATABASE_POOL_SIZE, AUTH_JWKS_FILE, AUTH_ISSUER, AUTH_AUDIENCE,
// PAGE_TOKEN_SECRET.
//
//   node bench/throughput/src/node-http-service.ts

import http from "node:http";
import { loadBaselineConfig } from "./baseline/config.ts";
import { serveUntilSignal } from "./baseline/process.ts";
import {
  type BaselineService,
  createBaselineService,
  MAX_BODY_BYTES,
  type Reply,
} from "./baseline/service.ts";

const config = loadBaselineConfig();
const service = createBaselineService(config);

const server = http.createServer(
  // Folio's HTTP/1.1 timeouts: keep-alive 65 s, headers 15 s, a whole request 60 s.
  { keepAliveTimeout: 65_000, headersTimeout: 15_000, requestTimeout: 60_000 },
  (req, res) => {
    handle(service, req).then(
      (reply) => write(res, reply),
      (error: unknown) => {
        console.error("unhandled failure", error);
        res.destroy();
      },
    );
  },
);

async function handle(service: BaselineService, req: http.IncomingMessage): Promise<Reply> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  if (path === "/api/v1/projects" && req.method === "GET") {
    req.resume();
    return service.listProjects({ path, search: q < 0 ? "" : url.slice(q + 1), headers: req.headers });
  }
  if (path === "/api/v1/folders" && req.method === "POST") {
    const body = await readBody(req);
    if (body === undefined) return service.bodyTooLarge(req.headers);
    return service.createFolder({ headers: req.headers, body });
  }
  req.resume();
  return service.noRoute(req.method ?? "GET", path, req.headers);
}

/** The request body, or undefined once it grows past the limit (the rest is not read). */
function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function write(res: http.ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

await serveUntilSignal(server, config, () => service.close());
