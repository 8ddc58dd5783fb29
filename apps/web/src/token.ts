/** What the app shows of a token: read from its payload, not verified (the server does that). */
export interface TokenSummary {
  readonly userId: string | undefined;
  readonly orgId: string | undefined;
  readonly scopes: readonly string[];
  readonly expiresAt: Date | undefined;
}

/** Reads a JWT's claims for display; undefined when it is not a JWT. */
export function summariseToken(token: string): TokenSummary | undefined {
  const payload = token.trim().split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const base64 = payload.replaceAll("-", "+").replaceAll("_", "/");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (claims === null || typeof claims !== "object") return undefined;
    const { sub, org_id, scope, scp, exp } = claims as Record<string, unknown>;
    const scopes =
      typeof scope === "string"
        ? scope.split(" ").filter(Boolean)
        : Array.isArray(scp)
          ? scp.filter((s): s is string => typeof s === "string")
          : [];
    return {
      userId: typeof sub === "string" ? sub : undefined,
      orgId: typeof org_id === "string" ? org_id : undefined,
      scopes,
      expiresAt: typeof exp === "number" ? new Date(exp * 1000) : undefined,
    };
  } catch {
    return undefined;
  }
}
