import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { type AccessTokenVerifier, callerKey, createAuthGate } from "@folio/auth";
import { createRateLimitGate, type RateLimiter } from "@folio/rate-limit";
import type { Logger } from "pino";
import type { Metrics } from "../observe/metrics.js";
import { requestIdKey } from "../observe/request-id.js";

/** What the call gate needs. */
export interface CallGateDependencies {
  readonly verify: AccessTokenVerifier;
  readonly requiredScope: Parameters<typeof createAuthGate>[0]["requiredScope"];
  readonly publicServices: Parameters<typeof createAuthGate>[0]["publicServices"];
  readonly anyScopeServices: Parameters<typeof createAuthGate>[0]["anyScopeServices"];
  readonly limiter: RateLimiter | undefined;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The router's request gate: what decides on a call from its headers alone, before its body is
 * read, on every protocol (connect-es's handlers run it; so do the in-process paths of REST and of
 * unary Connect, gRPC and gRPC-Web). In this order, the order `folder.proto` documents:
 * 1. authentication (401) and the method's scope (403): an anonymous client, or one without the
 *    scope, gets nothing read, decompressed or parsed for it, whatever it sent;
 * 2. the rate limits (429), charged to the caller authentication established: the body of a call
 *    over its limit is not read either, and an unauthenticated call is never counted.
 * Validation (400) comes after, in the interceptors, once the body is read. What fails here for no
 * deliberate reason is `internal`, logged with the request id, as the error interceptor does.
 */
export function createCallGate(deps: CallGateDependencies): (context: HandlerContext) => Promise<void> {
  const authenticate = createAuthGate({
    verify: deps.verify,
    requiredScope: deps.requiredScope,
    publicServices: deps.publicServices,
    anyScopeServices: deps.anyScopeServices,
  });
  const limit =
    deps.limiter === undefined
      ? undefined
      : createRateLimitGate({
          limiter: deps.limiter,
          keys(context) {
            const caller = context.values.get(callerKey);
            return caller === undefined ? undefined : { org: caller.orgId, token: caller.tokenId };
          },
          onError: (error) =>
            deps.logger.warn({ err: error }, "rate limiter unavailable; request not limited"),
          onRefused: (decision) => deps.metrics.rateLimitRefused(decision.policy),
        });
  return async (context) => {
    try {
      await authenticate(context);
      await limit?.(context);
    } catch (error) {
      if (error instanceof ConnectError && error.code !== Code.Unknown && error.code !== Code.Internal)
        throw error;
      const requestId = context.values.get(requestIdKey);
      deps.logger.error({ err: error, requestId, procedure: context.url }, "request failed");
      throw new ConnectError(`internal error (request id ${requestId})`, Code.Internal);
    }
  };
}
