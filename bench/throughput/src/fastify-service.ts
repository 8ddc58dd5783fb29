// The baseline on Fastify 5 + pg: Folio's two REST operations with Folio's semantics
// (baseline/service.ts), routed, read and answered by Fastify. Configured by environment variables,
// as Folio: HOST, PORT, DATABASE_URL, DATABASE_POOL_SIZE, AUTH_JWKS_FILE, AUTH_ISSUER,
// AUTH_AUDIENCE, PAGE_TOKEN_SECRET.
//
//   node bench/throughput/src/fastify-service.ts

import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { loadBaselineConfig } from "./baseline/config.ts";
import { serveUntilSignal } from "./baseline/process.ts";
import { createBaselineService, MAX_BODY_BYTES, type Reply } from "./baseline/service.ts";

const config = loadBaselineConfig();
const service = createBaselineService(config);

const app = Fastify({
  logger: false,
  bodyLimit: MAX_BODY_BYTES,
  // Folio's HTTP/1.1 timeouts: keep-alive 65 s, a whole request 60 s.
  keepAliveTimeout: 65_000,
  requestTimeout: 60_000,
});

// Bodies reach the shared decoder as bytes, whatever their Content-Type, so that JSON is read
// and refused (415 for another type, an empty body as an empty request) exactly as Folio does.
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

const send = (reply: FastifyReply, answer: Reply) =>
  reply.code(answer.status).headers(answer.headers).send(answer.body);
const pathAndSearch = (request: FastifyRequest) => {
  const q = request.url.indexOf("?");
  return q < 0
    ? { path: request.url, search: "" }
    : { path: request.url.slice(0, q), search: request.url.slice(q + 1) };
};

app.get("/api/v1/projects", async (request, reply) =>
  send(reply, await service.listProjects({ ...pathAndSearch(request), headers: request.headers })),
);

app.post("/api/v1/folders", async (request, reply) =>
  send(
    reply,
    await service.createFolder({
      headers: request.headers,
      body: request.body instanceof Buffer ? request.body : new Uint8Array(0),
    }),
  ),
);

app.setNotFoundHandler((request, reply) =>
  send(reply, service.noRoute(request.method, pathAndSearch(request).path, request.headers)),
);

app.setErrorHandler((error: { code?: string }, request, reply) =>
  send(
    reply,
    error.code === "FST_ERR_CTP_BODY_TOO_LARGE"
      ? service.bodyTooLarge(request.headers)
      : service.unexpected(error, request.headers),
  ),
);

await app.ready();
await serveUntilSignal(app.server, config, () => service.close());
