import { hash } from "node:crypto";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
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
  const realm = options.realm ?? "folio";
  const publicServices = new Set(options.publicServices?.map((service) => service.typeName));
  return (next) => async (req) => {
    if (publicServices.has(req.service.typeName)) return next(req);
    const scope = options.requiredScope(req.method);
    if (scope === undefined) {
      // Unreachable when start-up ran assertEveryMethodHasScope; fail closed regardless.
      throw new ConnectError("method has no declared scope", Code.PermissionDenied);
    }
    const header = req.header.get("authorization");
    if (header === null || header.trim() === "") {
      // RFC 6750, section 3.1: no error attribute when the request carried no credentials.
      throw challenge(Code.Unauthenticated, "missing bearer token", `Bearer realm="${realm}"`);
    }
    const match = BEARER.exec(header);
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
        throw new ConnectError(error.message, Code.Unavailable, undefined, undefined, error);
      }
      throw error;
    }
    if (!caller.scopes.has(scope)) {
      throw challenge(
        Code.PermissionDenied,
        `token lacks the scope "${scope}"`,
        `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"`,
      );
    }
    req.contextValues.set(callerKey, { ...caller, tokenId: tokenIdOf(token) });
    return next(req);
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
