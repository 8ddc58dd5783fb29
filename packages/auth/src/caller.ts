import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";

/** The authenticated caller of a request: who, for which organisation, allowed to do what. */
export interface Caller {
  /** Identifier of the user (UUID), from the token's subject. */
  readonly userId: string;
  /** Identifier of the organisation (UUID) the caller acts for; every query is scoped by it. */
  readonly orgId: string;
  /** OAuth scopes granted by the token. */
  readonly scopes: ReadonlySet<string>;
}

/**
 * The one context value through which handlers learn who calls them. The auth interceptor sets it
 * after verifying the access token; nothing else does.
 */
export const callerKey = createContextKey<Caller | undefined>(undefined, {
  description: "authenticated caller",
});

/** Returns the caller of the request; a handler reached without one is a wiring bug, not a 200. */
export function requireCaller(context: HandlerContext): Caller {
  const caller = context.values.get(callerKey);
  if (caller === undefined) {
    throw new ConnectError("request is not authenticated", Code.Unauthenticated);
  }
  return caller;
}
