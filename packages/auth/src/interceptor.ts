import { hash } from "node:crypto";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
} from "@connectrpc/connect";
import { callerKey } from "./caller.js";
import { signingInput } from "./compact-jws.js";
import { type AccessTokenVerifier, InvalidTokenError, KeySetUnavailableError } from "./verify.js";

/** Options of {@link createAuthInterceptor}. */
export interface AuthInterceptorOptions {
  /** Verifies the bearer token. */
  readonly verify: AccessTokenVerifier;
  /** The scope a method requires (declared in the proto); see {@link assertEveryMethodHasScope}. */
  readonly requiredScope: (method: DescMethod) => string | undefined;
  /** `realm` of WWW-Authenticate challenges. */
  readonly realm?: string;
  /**
   * Services callable without a token, such as server reflection and health checking: their
   * calls pass through untouched and have no caller.
   */
  readonly publicServices?: readonly DescService[];
  /**
   * Services callable with any valid token, whatever its scopes, such as server reflection where
   * it is not public: anyone who may call the API may read its schema. Their calls have a caller.
   */
  readonly anyScopeServices?: readonly DescService[];
}

/**
 * The `Authorization` header's credentials (RFC 6750, section 2.1). The scheme is
 * case-insensitive (RFC 9110, section 11.1); the token is a b64token, one or more spaces after
 * the scheme.
 */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Authenticates every call, on every protocol, in one place: verifies the bearer token, checks the
 * method's scope and puts the {@link Caller} into the request's context values.
 */
export function createAuthInterceptor(options: AuthInterceptorOptions): Interceptor {
  const authenticate = createAuthentication(options);
  return (next) => async (req) => {
    await authenticate(req.service, req.method, req.header, req.contextValues);
    return next(req);
  };
}

/**
 * The same authentication as a request gate (connect-es's `requestGate`, and the router of
 * `@folio/rpc-protocols` on its in-process paths): it runs on the request's headers, before the
 * body is read, so a caller without a valid token or the method's scope is refused before anything
 * is read, decompressed or parsed for it.
 */
export function createAuthGate(options: AuthInterceptorOptions): (context: HandlerContext) => Promise<void> {
  const authenticate = createAuthentication(options);
  return (context) => authenticate(context.service, context.method, context.requestHeader, context.values);
}

/** Verifies a call's bearer token and scope, and sets its caller; throws the call's refusal. */
function createAuthentication(options: AuthInterceptorOptions) {
  const realm = options.realm ?? "folio";
  const publicServices = new Set(options.publicServices?.map((service) => service.typeName));
  const anyScopeServices = new Set(options.anyScopeServices?.map((service) => service.typeName));
  return async (service: DescService, method: DescMethod, header: Headers, values: ContextValues) => {
    if (publicServices.has(service.typeName)) return;
    const anyScope = anyScopeServices.has(service.typeName);
    const scope = anyScope ? undefined : options.requiredScope(method);
    if (!anyScope && scope === undefined) {
      // Unreachable when start-up ran assertEveryMethodHasScope; fail closed regardless.
      throw new ConnectError("method has no declared scope", Code.PermissionDenied);
    }
    const authorization = header.get("authorization");
    if (authorization === null || authorization.trim() === "") {
      // RFC 6750, section 3.1: no error attribute when the request carried no credentials.
      throw challenge(Code.Unauthenticated, "missing bearer token", `Bearer realm="${realm}"`);
    }
    const match = BEARER.exec(authorization);
    if (match === null) {
      throw invalidToken(realm, "authorization header must be 'Bearer <token>'");
    }
    const token = match[1] as string;
    let caller: Awaited<ReturnType<AccessTokenVerifier>>;
    try {
      caller = await options.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw invalidToken(realm, error.message);
      if (error instanceof KeySetUnavailableError) {
        // Our outage, not the client's fault: a client that retries is told when it may succeed.
        throw new ConnectError(
          error.message,
          Code.Unavailable,
          { "retry-after": String(error.retryAfterSeconds) },
          undefined,
          error,
        );
      }
      throw error;
    }
    if (scope !== undefined && !caller.scopes.has(scope)) {
      throw challenge(
        Code.PermissionDenied,
        `token lacks the scope "${scope}"`,
        `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"`,
      );
    }
    values.set(callerKey, { ...caller, tokenId: tokenIdOf(token) });
  };
}

/**
 * Throws unless every method of the services declares a scope: a method without one would be
 * unreachable at best and public at worst, so the server must not start.
 */
export function assertEveryMethodHasScope(
  methods: Iterable<DescMethod>,
  requiredScope: (method: DescMethod) => string | undefined,
): void {
  const missing = [...methods].filter((m) => !requiredScope(m)).map((m) => `${m.parent.typeName}.${m.name}`);
  if (missing.length > 0) {
    throw new Error(`methods without a required scope: ${missing.join(", ")}`);
  }
}

/** The id of a token: the SHA-256 (hex) of its signing input (see {@link Caller.tokenId}). */
function tokenIdOf(token: string): string {
  return hash("sha256", signingInput(token), "hex");
}

function invalidToken(realm: string, message: string): ConnectError {
  return challenge(
    Code.Unauthenticated,
    message,
    `Bearer realm="${realm}", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`,
  );
}

function challenge(code: Code, message: string, wwwAuthenticate: string): ConnectError {
  return new ConnectError(message, code, { "www-authenticate": wwwAuthenticate });
}
