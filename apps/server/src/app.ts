import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createFileRegistry, type DescService, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { type ConnectRouter, createContextValues } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  assertEveryMethodHasScope,
  callerKey,
  createAccessTokenVerifier,
  createAuthInterceptor,
  type DevelopmentIssuer,
  loadDevelopmentIssuer,
} from "@folio/auth";
import { applyMigrations, createDb, type Db } from "@folio/db";
import { EMBEDDED_POOL_SIZE, type EmbeddedPostgres, startEmbeddedPostgres } from "@folio/embedded-postgres";
import { registerServerReflection } from "@folio/grpc-reflection";
import { createHttpTranscoder } from "@folio/http-transcoder";
import { createApiDocsHandler, createOpenApiDocument, uuidForIdFields } from "@folio/openapi";
import { documentedErrors, FolderService, ProjectService, requiredScope, successStatus } from "@folio/proto";
import { createRateLimiter, createRateLimitInterceptor, type RateLimiter, tokenKey } from "@folio/rate-limit";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { seedDemoProjects } from "./demo.js";
import type { Config } from "./env.js";
import { createErrorInterceptor } from "./errors.js";
import { createIdempotency } from "./idempotency.js";
import type { NodeHandler } from "./listen.js";
import { createPageTokens } from "./page-token.js";
import { REQUEST_ID_HEADER, requestIdFor, requestIdKey } from "./request-id.js";
import { createFolderService } from "./services/folders.js";
import { createProjectService } from "./services/projects.js";

/** The services of the Folio API, in the order they are mounted. */
export const services: readonly DescService[] = [FolderService, ProjectService];

/** The OpenAPI document of the REST API, with descriptions from the proto comments. */
export function createFolioOpenApiDocument() {
  const image = readFileSync(createRequire(import.meta.url).resolve("@folio/proto/folio.binpb"));
  return createOpenApiDocument({
    services,
    info: {
      title: "Folio API",
      version: "v1",
      description: "Document management for an organisation's workspace: folders and projects.",
    },
    comments: createFileRegistry(fromBinary(FileDescriptorSetSchema, image)),
    security: {
      requiredScope,
      description: "OAuth 2.0 access token (JWT, RFC 9068) with the operation's scope.",
    },
    successStatus,
    errorResponses: documentedErrors,
    stringFormat: uuidForIdFields,
    pageLinks: true,
    responseHeaders: (status) => ({
      ...(status === 401 ? {} : RATE_LIMIT_HEADERS),
      ...(status === 429 || status === 409
        ? {
            "Retry-After": {
              description:
                "Seconds to wait before retrying: on 429 until the rate limit allows another request, on 409 `aborted` until the request with the same idempotency key has likely finished.",
              schema: { type: "integer", minimum: 1 },
            },
          }
        : {}),
    }),
  });
}

/** Rate-limit headers of authenticated responses (draft-ietf-httpapi-ratelimit-headers-06). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": {
    description:
      "Requests allowed per window by the policy closest to being exceeded (per token or per organisation).",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": {
    description: "Requests left in the current window of that policy.",
    schema: { type: "integer" },
  },
  "RateLimit-Reset": {
    description: "Seconds until that policy's window resets.",
    schema: { type: "integer" },
  },
  "RateLimit-Policy": {
    description: "The policies applied, e.g. `1200;w=60, 6000;w=60` (requests;w=window in seconds).",
    schema: { type: "string" },
  },
} as const;

/** The assembled server, ready to be mounted on a port. */
export interface App {
  readonly handler: NodeHandler;
  readonly db: Db;
  /** Present in development mode: the issuer whose tokens this server accepts. */
  readonly developmentIssuer: DevelopmentIssuer | undefined;
  /** Where the data lives: the configured PostgreSQL, or the embedded one. */
  readonly database: { readonly embedded: boolean; readonly url: string };
  /** Deletes expired idempotency keys now (the server does it hourly); returns how many. */
  purgeExpiredIdempotencyKeys(): Promise<number>;
  close(): Promise<void>;
}

/** Connects the database (embedded by default), applies migrations and assembles the handlers. */
export async function createApp(config: Config, logger: Logger): Promise<App> {
  assertEveryMethodHasScope(
    services.flatMap((service) => service.methods),
    requiredScope,
  );

  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (url === undefined) {
    embedded = await startEmbeddedPostgres({ dataDir: join(config.dataDir, "postgres") });
    url = embedded.url;
    logger.info({ dataDir: embedded.dataDir }, "using the embedded PostgreSQL");
  }
  try {
    const { applied } = await applyMigrations(url, { log: (message) => logger.info(message) });
    logger.info({ applied }, applied.length > 0 ? "migrations applied" : "database schema up to date");
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  // The embedded database takes one connection at a time (two connections' queries can interleave).
  const db = createDb(url, {
    maxConnections: embedded === undefined ? config.databasePoolSize : EMBEDDED_POOL_SIZE,
  });

  let developmentIssuer: DevelopmentIssuer | undefined;
  let verify: Awaited<ReturnType<typeof createAccessTokenVerifier>>;
  const auth = config.auth;
  const rules = {
    issuer: auth.issuer,
    audience: auth.audience,
    clockToleranceSeconds: auth.clockToleranceSeconds,
    userClaim: auth.userClaim,
    orgClaim: auth.orgClaim,
    ...(auth.algorithms ? { algorithms: auth.algorithms } : {}),
  };
  if (auth.mode === "development") {
    developmentIssuer = await loadDevelopmentIssuer(config.dataDir, rules);
    verify = await createAccessTokenVerifier({ ...rules, keys: { jwks: developmentIssuer.jwks } });
    await seedDemoProjects(db, logger);
  } else if ("jwksUrl" in auth) {
    verify = await createAccessTokenVerifier({
      ...rules,
      keys: { jwksUrl: auth.jwksUrl },
      jwksCooldownMs: auth.jwksCooldownSeconds * 1000,
    });
  } else {
    verify = await createAccessTokenVerifier({ ...rules, keys: { jwksFile: auth.jwksFile } });
  }

  if (config.pageTokenSecret === undefined && auth.mode !== "development") {
    logger.warn(
      "PAGE_TOKEN_SECRET is not set: page tokens are signed with a random key, valid only on this process until it restarts",
    );
  }
  const pageTokens = createPageTokens(config.pageTokenSecret);
  const idempotency = createIdempotency(db);
  // Expired idempotency keys are deleted hourly; a key past its expiry is ignored even before.
  const purge = setInterval(() => {
    idempotency.purgeExpired().then(
      (count) => count > 0 && logger.info({ count }, "expired idempotency keys deleted"),
      (error: unknown) => logger.warn({ err: error }, "could not delete expired idempotency keys"),
    );
  }, 3_600_000);
  purge.unref();

  const { limiter, redis } = await createLimiter(config, logger);

  const errorInterceptor = createErrorInterceptor(logger);
  // A service's own interceptors replace the router's (they are not added to them), so the error
  // interceptor is named here too, outermost: it sees every failure, including the auth ones.
  // Rate limits count authenticated calls only, after the scope check: who to charge is known then.
  const authenticated = {
    interceptors: [
      errorInterceptor,
      createAuthInterceptor({ verify, requiredScope }),
      ...(limiter === undefined
        ? []
        : [
            createRateLimitInterceptor({
              limiter,
              keys(req) {
                const caller = req.contextValues.get(callerKey);
                const authorization = req.header.get("authorization");
                return caller && authorization
                  ? { org: caller.orgId, token: tokenKey(authorization) }
                  : undefined;
              },
              onError: (error) =>
                logger.warn({ err: error }, "rate limiter unavailable; request not limited"),
            }),
          ]),
    ],
  };
  const contextValues = (req: { headers: Record<string, string | string[] | undefined> }) =>
    createContextValues().set(requestIdKey, String(req.headers[REQUEST_ID_HEADER]));
  let router: ConnectRouter | undefined;
  const connectHandler = connectNodeAdapter({
    routes(r: ConnectRouter) {
      r.service(FolderService, createFolderService(db, idempotency), authenticated);
      r.service(ProjectService, createProjectService(db, pageTokens), authenticated);
      registerServerReflection(r, { services });
      router = r;
    },
    interceptors: [errorInterceptor],
    contextValues,
  });
  // REST reaches the very same handlers (and so the same interceptors) as Connect and gRPC.
  const rest = createHttpTranscoder({
    handlers: (router as ConnectRouter | undefined)?.handlers ?? [],
    services,
    contextValues,
    successStatus,
    pageLinks: true,
  });
  const docs = createApiDocsHandler({ document: createFolioOpenApiDocument() });

  const jwksBody = developmentIssuer ? JSON.stringify(developmentIssuer.jwks) : undefined;

  const handler: NodeHandler = (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFor(req.headers[REQUEST_ID_HEADER]);
    // Connect reads the id from the request headers; the response carries it on every protocol.
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    res.on("finish", () => {
      logger.info(
        {
          requestId,
          method: req.method,
          url: req.url,
          httpVersion: req.httpVersion,
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        },
        "request completed",
      );
    });
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/.well-known/jwks.json" && jwksBody !== undefined) {
      respond(res, 200, "application/jwk-set+json", jwksBody);
      return;
    }
    if (req.method === "GET" && path === "/healthz") {
      respond(res, 200, "application/json", '{"status":"ok"}');
      return;
    }
    if (docs(req, res)) return;
    if (path?.startsWith("/api/")) {
      rest(req, res);
      return;
    }
    connectHandler(req, res);
  };

  return {
    handler,
    db,
    developmentIssuer,
    database: { embedded: embedded !== undefined, url },
    purgeExpiredIdempotencyKeys: () => idempotency.purgeExpired(),
    async close() {
      clearInterval(purge);
      await limiter?.close();
      redis?.disconnect();
      await db.close();
      await embedded?.stop();
    },
  };
}

/** The rate limiter of the configuration: none, in memory, or in the Redis of REDIS_URL. */
async function createLimiter(
  config: Config,
  logger: Logger,
): Promise<{ limiter?: RateLimiter; redis?: Redis }> {
  const { orgRequests, tokenRequests, windowSeconds, redisUrl } = config.rateLimit;
  if (orgRequests === 0) {
    logger.warn("rate limiting is off (RATE_LIMIT_ORG_REQUESTS=0)");
    return {};
  }
  let redis: Redis | undefined;
  if (redisUrl !== undefined) {
    // Commands fail fast rather than queue while Redis is away: the limiter then lets calls through.
    redis = new Redis(redisUrl, { lazyConnect: true, commandTimeout: 1000, maxRetriesPerRequest: 1 });
    redis.on("error", (error: unknown) => logger.warn({ err: error }, "redis error"));
    await redis.connect();
  }
  const limiter = createRateLimiter({
    rules: {
      org: { name: "org", points: orgRequests, durationSeconds: windowSeconds },
      token: { name: "token", points: tokenRequests, durationSeconds: windowSeconds },
    },
    ...(redis === undefined ? {} : { redis }),
  });
  logger.info(
    { orgRequests, tokenRequests, windowSeconds, store: redis === undefined ? "memory" : "redis" },
    "rate limits",
  );
  return { limiter, ...(redis === undefined ? {} : { redis }) };
}

function respond(res: Parameters<NodeHandler>[1], status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader("content-type", contentType);
  res.end(body);
}
