import type { DevelopmentIssuer } from "@folio/auth";
import type { Db } from "@folio/db";
import { healthServices } from "@folio/grpc-health";
import { reflectionServices } from "@folio/grpc-reflection";
import { createHttpTranscoder } from "@folio/http-transcoder";
import {
  connectRequestOptions,
  createInProcessRunner,
  createRpcHandler,
  createUnaryCalls,
} from "@folio/rpc-protocols";
import type { Logger } from "pino";
import { createAccessTokens } from "./access-tokens.js";
import { scheduleIdempotencyPurge } from "./database/idempotency-purge.js";
import { type Database, openDatabase } from "./database/open-database.js";
import { DEMO_ORG_ID, DEMO_USER_ID, seedDemoProjects } from "./demo.js";
import { createApiDocs } from "./endpoints/api-docs.js";
import { createDevelopmentTokenEndpoint } from "./endpoints/development-token.js";
import { liveness, readinessHandler } from "./endpoints/probes.js";
import { loadWebApp } from "./endpoints/web-app.js";
import type { Config } from "./env.js";
import { healthFollowing } from "./health/grpc-health-statuses.js";
import { monitorReadiness, type Readiness } from "./health/readiness.js";
import { watchSigningKeys } from "./health/signing-keys.js";
import { createRateLimiting } from "./interceptors/rate-limiting.js";
import { createStreamLimitInterceptor } from "./interceptors/stream-limits.js";
import { createMetrics, type Metrics } from "./observe/metrics.js";
import { callContextValues } from "./observe/request-id.js";
import { withRequestLog } from "./observe/request-log.js";
import { createRouter } from "./router.js";
import { apiScopeNames, assertScopesDeclared, restApi, services } from "./services/api.js";
import { createPageTokens } from "./services/page-token.js";
import { createCors } from "./transport/cors.js";
import { createDispatch } from "./transport/dispatch.js";
import type { NodeHandler, NodeRequest } from "./transport/node-handler.js";

/** The assembled server, ready to be mounted on a port. */
export interface App {
  readonly handler: NodeHandler;
  readonly db: Db;
  /** Present in development mode: the issuer whose tokens this server accepts. */
  readonly developmentIssuer: DevelopmentIssuer | undefined;
  /** Where the data lives: the configured PostgreSQL, or the embedded one. */
  readonly database: { readonly embedded: boolean; readonly url: string };
  /** The Prometheus metrics, served on their own port by main.ts. */
  readonly metrics: Metrics;
  /** Whether this instance should get traffic (`/readyz`, gRPC health). */
  readonly readiness: Readiness;
  /** Deletes expired idempotency keys now (the server does it hourly); returns how many. */
  purgeExpiredIdempotencyKeys(): Promise<number>;
  /** A shutdown begins: `/readyz` and gRPC health say NOT_SERVING from now on; requests are still served. */
  beginShutdown(): void;
  /** Ends the streams that never end by themselves (gRPC health Watch), so that connections can drain. */
  endStreams(): void;
  /**
   * Stops the background work and closes the database: its statements still running are
   * cancelled, and each step of its close waits at most `databaseTimeoutMs` (default 5 s).
   */
  close(databaseTimeoutMs?: number): Promise<void>;
}

/** Closes what a failed start had opened (nothing may keep the process alive), then fails with `error`. */
async function failClosing(error: unknown, opened: readonly { close(): unknown }[]): Promise<never> {
  for (const resource of opened) await resource.close();
  throw error;
}

/** Development mode's demo projects, once the tables exist: with migrations left to `migrate`, they may not yet. */
async function seedDemoData(database: Database, logger: Logger): Promise<void> {
  if (database.pendingAtStart.length === 0) await seedDemoProjects(database.db, logger);
  else logger.warn("demo projects not seeded: migrations are pending");
}

/**
 * The `Cache-Control` of a successful read (a REST GET, a Connect GET): an answer for one bearer of
 * a token, never kept by a shared cache, revalidated by the client (RFC 9111, sections 5.2.2.4 and
 * 5.2.2.7).
 */
function readCacheControl(req: NodeRequest): string | undefined {
  return req.headers.authorization === undefined ? undefined : "private, no-cache";
}

/**
 * Assembles the server. A request's path through it: transport/listen (one port, HTTP/1.1 and
 * h2c) → observe/request-log (request id, access log, metrics; creates the request's record and
 * hands it down as its report) → transport/dispatch → REST transcoder or the RPC handler of
 * @folio/rpc-protocols (its unary calls in-process; the rest: connect-es's handlers) → router (its
 * request gate before the body is read: authentication, scope, rate limits; then the interceptors:
 * errors, validation, cancelled call) →
 * services/* → @folio/db. The layer that answers reports the code, once.
 */
export async function createApp(config: Config, logger: Logger): Promise<App> {
  assertScopesDeclared();
  // The pool's numbers are read at each scrape, once the database is open.
  const metrics = createMetrics({ poolStats: () => database.db.poolStats() });
  const signingKeys = watchSigningKeys(logger, metrics);
  // The keys and Redis before the database: a start that fails on them has not migrated it.
  const tokens = await createAccessTokens(config, signingKeys.onEvent);
  const rateLimiting = await createRateLimiting(config, logger);
  const database = await openDatabase(config, logger, (reason) => metrics.queryFailed(reason)).catch(
    (error: unknown) => failClosing(error, [tokens, rateLimiting]),
  );
  const db = database.db;
  if (tokens.developmentIssuer !== undefined) await seedDemoData(database, logger);
  if (config.pageTokenSecrets.length === 0 && config.auth.mode !== "development") {
    logger.warn(
      "PAGE_TOKEN_SECRET is not set: page tokens are sealed with a random key, valid only on this process until it restarts",
    );
  }
  const purge = scheduleIdempotencyPurge(db, logger);
  const readiness = monitorReadiness({ db, logger, signingKeysAvailable: () => signingKeys.available });
  await readiness.check();
  const health = healthFollowing(readiness, services);

  const router = createRouter({
    db,
    pageTokens: createPageTokens(config.pageTokenSecrets),
    verify: tokens.verify,
    limiter: rateLimiting.limiter,
    logger,
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    health,
    metrics,
    // Reflection's answers are large and cheap to ask for: without a token only in development.
    publicReflection: config.auth.mode === "development",
    streamLimits: createStreamLimitInterceptor(
      [...healthServices, ...reflectionServices],
      config.publicStreams,
    ),
  });
  const rest = createHttpTranscoder({
    router,
    // REST calls the router's methods in-process with the message it built, gated before the body.
    runner: createInProcessRunner(router.registered),
    services: restApi.services,
    successStatus: restApi.successStatus,
    pageLinks: restApi.pageLinks,
    maxBodyBytes: config.maxRequestBodyBytes,
    compression: { threshold: config.restCompressMinBytes },
    cacheControl: readCacheControl,
  });
  const connect = createRpcHandler(router, {
    notFound: (_req, res) => {
      res.statusCode = 404;
      res.end();
    },
    logger,
    unaryCalls: config.rpcInProcessUnary
      ? createUnaryCalls({
          registered: router.registered,
          requestOptions: connectRequestOptions(config.maxRequestBodyBytes),
          logger,
          // Connect GETs of reads are cached as REST GETs are.
          getCaching: { cacheControl: readCacheControl },
        })
      : undefined,
  });
  const handler = withRequestLog(
    logger,
    metrics,
    createDispatch({
      cors: createCors(config.corsAllowedOrigins),
      liveness,
      readiness: readinessHandler(readiness),
      jwks: tokens.developmentIssuer?.jwks,
      developmentToken:
        tokens.developmentIssuer === undefined
          ? undefined
          : createDevelopmentTokenEndpoint(tokens.developmentIssuer, {
              orgId: DEMO_ORG_ID,
              userId: DEMO_USER_ID,
              scopes: apiScopeNames,
            }),
      docs: createApiDocs(config.auth),
      webApp: loadWebApp(logger),
      // The transcoder answers REST requests, and reports to the request's report what it answered.
      rest: (req, res, report) =>
        rest(req, res, { contextValues: callContextValues(report.requestId), report }),
      connect: (req, res, report) =>
        connect(req, res, { contextValues: () => callContextValues(report.requestId, req), report }),
    }),
  );

  return {
    handler,
    db,
    developmentIssuer: tokens.developmentIssuer,
    database: { embedded: database.embedded, url: database.url },
    metrics,
    readiness,
    purgeExpiredIdempotencyKeys: () => db.idempotencyKeys.purgeExpired(),
    beginShutdown: () => readiness.beginShutdown(),
    endStreams: () => health.endWatches(),
    async close(databaseTimeoutMs) {
      readiness.stop();
      health.endWatches();
      purge.stop();
      tokens.close();
      // Together: the database's close cancels statements, which must not wait behind Redis.
      await Promise.all([rateLimiting.close(), database.close(databaseTimeoutMs)]);
    },
  };
}
