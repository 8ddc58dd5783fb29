import type { Interceptor } from "@connectrpc/connect";
import type { AccessTokenVerifier } from "@folio/auth";
import type { Db } from "@folio/db";
import { type HealthStatuses, healthServices, registerHealthService } from "@folio/grpc-health";
import { reflectionServices, registerServerReflection } from "@folio/grpc-reflection";
import { FolderService, ProjectService } from "@folio/proto";
import type { RateLimiter } from "@folio/rate-limit";
import { connectRequestOptions, createTranscodingRouter, type TranscodingRouter } from "@folio/rpc-protocols";
import type { Logger } from "pino";
import { createCallGate } from "./interceptors/call-gate.js";
import { createCancelledCallInterceptor } from "./interceptors/cancelled-call.js";
import { createErrorInterceptor } from "./interceptors/errors.js";
import { createValidationInterceptor } from "./interceptors/validation.js";
import type { Metrics } from "./observe/metrics.js";
import { restApi, services } from "./services/api.js";
import { createFolderRules } from "./services/create-folder-request.js";
import { createFolderService } from "./services/folders.js";
import type { PageTokens } from "./services/page-token.js";
import { createProjectService } from "./services/projects.js";
import { createRequestValidation } from "./services/request-validation.js";

/** What the router's services and interceptors need. */
export interface RouterDependencies {
  readonly db: Db;
  readonly pageTokens: PageTokens;
  readonly verify: AccessTokenVerifier;
  readonly limiter: RateLimiter | undefined;
  readonly logger: Logger;
  /** The largest request message, counted after decompression. */
  readonly maxRequestBodyBytes: number;
  /** What grpc.health.v1.Health answers. */
  readonly health: HealthStatuses;
  readonly metrics: Metrics;
  /** Reflection without a token (development mode); otherwise with any valid token, charged like a call. */
  readonly publicReflection: boolean;
  /** Bounds the streams anyone may open: health Watch, reflection (see interceptors/stream-limits.ts). */
  readonly streamLimits: Interceptor;
}

/**
 * The one Connect router of the server: every service, behind one ordered interceptor chain. The
 * Connect/gRPC/gRPC-Web handler serves its handlers, and the REST transcoder calls its methods
 * in-process through the same chain, so a call runs the same code whatever its protocol.
 */
export function createRouter(deps: RouterDependencies): TranscodingRouter {
  const router = createTranscodingRouter({
    interceptors: interceptorChain(deps),
    ...connectRequestOptions(deps.maxRequestBodyBytes),
    // Authentication and rate limits, before the body is read (see call-gate.ts).
    requestGate: createCallGate({
      verify: deps.verify,
      requiredScope: restApi.requiredScope,
      publicServices: deps.publicReflection ? [...reflectionServices, ...healthServices] : healthServices,
      anyScopeServices: reflectionServices,
      limiter: deps.limiter,
      logger: deps.logger,
      metrics: deps.metrics,
    }),
  });
  router.service(
    FolderService,
    createFolderService(deps.db, deps.pageTokens, {
      replayed: () => deps.metrics.idempotencyReplayed(),
      conflicted: (reason) => deps.metrics.idempotencyConflicted(reason),
    }),
  );
  router.service(ProjectService, createProjectService(deps.db, deps.pageTokens));
  registerHealthService(router, deps.health);
  registerServerReflection(router, { services: [...services, ...healthServices] });
  return router;
}

/**
 * The interceptors every call passes once the request gate (authentication, scope, rate limits:
 * see call-gate.ts) let it through and its body is read, outermost first, and why in this order
 * (the code of the call's answer is reported by the layer that writes it, outside the chain: see
 * app.ts):
 * 1. errors: sees every failure, the others' included, and turns it into the code the client gets;
 * 2. validation: the request's `buf.validate` rules and the service's own, for every protocol;
 *    after the gate, so that a caller without the scope is 403 whatever it sent, and bad requests
 *    count against the limit.
 * 3. cancelled calls: a call whose client has gone by now does not reach the service.
 * 4. stream limits: a stream anyone may open is counted and bounded where it reaches its service.
 * Services register no interceptors of their own: a service's list would replace this one.
 */
function interceptorChain(deps: RouterDependencies): Interceptor[] {
  // Built here, once: the validator compiles every request's rules now, not on a first call.
  const validation = createRequestValidation(
    services.flatMap((service) => service.methods),
    [createFolderRules],
  );
  return [
    createErrorInterceptor(deps.logger),
    createValidationInterceptor(validation),
    createCancelledCallInterceptor(),
    deps.streamLimits,
  ];
}
