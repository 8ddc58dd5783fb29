import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";

/** The authenticated caller of a request: who, for which organisation, allowed to do what. */
export interface Caller {
  /** Identifier of the user (UUID), from the token's subject. */
  readonly userId: string;
  /** Identifier of the organisation (UUID) the caller acts for; every query is scoped by it. */
  readonly orgId: string;
  /** OAuth scopes granted by the token. */
  readonly scopes: ReadonlySet<string>;
  /**
   * Identifies the access token without holding it: the SHA-256 (hex) of its signing input (header
   * and payload, which the signature covers), so every signature of the same token (ECDSA has two)
   * is one id. Rate limits are counted per token by this id, so neither Redis nor a heap dump holds
   * usable credentials.
   */
  readonly tokenId: string;
}

/**
 * The one context value through which handlers learn who calls them. The auth interceptor sets it
 * after verifying the access token; nothing else does.
 */
export const callerKey = createContextKey<Caller | undefined>(undefined, {
  description: "authenticated caller",
});

/**
 * Returns the caller of the request. A handler reached without one means the auth interceptor was
 * not in front of it: a wiring bug of the server (`internal`, logged), not the client's fault.
 */
export function requireCaller(context: HandlerContext): Caller {
  const caller = context.values.get(callerKey);
  if (caller === undefined) {
    throw new ConnectError(
      `handler of ${context.method.parent.typeName}/${context.method.name} ran without an authenticated caller`,
      Code.Internal,
    );
  }
  return caller;
}

/** Verifies an access token and returns the caller it authenticates. */
export type AccessTokenVerifier = (token: string) => Promise<Omit<Caller, "tokenId">>;
