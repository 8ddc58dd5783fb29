import { Code, ConnectError, createContextKey, type Interceptor } from "@connectrpc/connect";
import { currentToken, type TokenSource } from "./auth.js";
import { FolioError } from "./errors.js";
import { fillRequestId, mayRetry } from "./method-policy.js";
import { type RetryOptions, withRetries } from "./retry.js";

/** The epoch ms at which a call gives up (its `timeoutMs`), for the retries to respect. */
export const deadlineKey = createContextKey<number | undefined>(undefined, { description: "folio deadline" });

/** Every error of a call as a {@link FolioError}: the outermost interceptor. */
export const typedErrors: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (reason) {
    throw FolioError.from(reason);
  }
};

/**
 * Gives a call of a method that takes an idempotency key (AIP-155 `request_id`) one, made once
 * before its first attempt, unless the caller set one: every retry of it then names the same
 * request, and the server acts on it once however many attempts reach it.
 */
export const idempotencyKeys: Interceptor = (next) => async (req) => {
  if (!req.stream) fillRequestId(req.method, req.message);
  return await next(req);
};

/**
 * Retries a unary call that failed with `unavailable`, `resource_exhausted` or `aborted`, when the
 * method's proto makes a retry safe (see method-policy.ts): it is declared idempotent, or its
 * request carries an idempotency key. Waits the Retry-After Folio sends (a response header or
 * trailer), else backs off exponentially with jitter; stops after `maxAttempts`, when the call's
 * signal aborts, or when the next attempt would start past its deadline.
 */
export function retries(options: RetryOptions): Interceptor {
  return (next) => async (req) => {
    if (req.stream || !mayRetry(req.method, req.message)) return await next(req);
    return await withRetries(() => next(req), {
      ...options,
      signal: req.signal,
      deadline: req.contextValues.get(deadlineKey),
    });
  };
}

/**
 * Sends `Authorization: Bearer <token>`; with a token provider, answers `unauthenticated` by
 * asking it once more for a fresh token and repeating the call once.
 */
export function bearerToken(source: TokenSource): Interceptor {
  return (next) => async (req) => {
    const token = await currentToken(source, false);
    if (token !== undefined && token !== "") req.header.set("authorization", `Bearer ${token}`);
    try {
      return await next(req);
    } catch (reason) {
      if (source.getToken === undefined || ConnectError.from(reason).code !== Code.Unauthenticated)
        throw reason;
      const fresh = await currentToken(source, true);
      if (fresh === undefined || fresh === "" || fresh === token) throw reason;
      req.header.set("authorization", `Bearer ${fresh}`);
      return await next(req);
    }
  };
}

/** The interceptors of a Folio transport, outermost first. */
export function folioInterceptors(source: TokenSource, retry: RetryOptions): Interceptor[] {
  return [typedErrors, idempotencyKeys, retries(retry), bearerToken(source)];
}
