import { readFileSync } from "node:fs";
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from "jose";
import { ApiError } from "./api-error.ts";

/** Who calls: from the verified token's `sub` and `org_id` claims. */
export interface Caller {
  readonly userId: string;
  readonly orgId: string;
  readonly scopes: ReadonlySet<string>;
}

/** Checks the `Authorization` header of a request and the scope its operation needs. */
export type Authenticate = (authorization: string | undefined, scope: string) => Promise<Caller>;

/** Folio's defaults: asymmetric algorithms only, 30 s of clock tolerance, realm `folio`. */
const ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];
const CLOCK_TOLERANCE_SECONDS = 30;
const REALM = "folio";
const ACCEPTED_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt"]);
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Verifies RFC 9068 access tokens with jose's `jwtVerify` against the keys of a JWKS file, on every
 * request (no cache), with the checks Folio makes: issuer, audience, algorithm, `exp` required and
 * checked, `iat` not in the future, `typ`, UUID `sub` and `org_id`; then the operation's scope.
 */
export function createAuthenticate(options: {
  readonly jwksFile: string;
  readonly issuer: string;
  readonly audience: string;
}): Authenticate {
  const keys: JWTVerifyGetKey = createLocalJWKSet(
    JSON.parse(readFileSync(options.jwksFile, "utf8")) as JSONWebKeySet,
  );
  return async (authorization, scope) => {
    if (authorization === undefined || authorization.trim() === "") {
      throw challenge("unauthenticated", "missing bearer token", `Bearer realm="${REALM}"`);
    }
    const match = BEARER.exec(authorization);
    if (match === null) throw invalidToken("authorization header must be 'Bearer <token>'");
    let payload: Record<string, unknown>;
    try {
      const result = await jwtVerify(match[1] as string, keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ["exp"],
      });
      const iat = result.payload.iat;
      if (iat !== undefined && iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) {
        throw invalidToken("token was issued in the future");
      }
      const typ = result.protectedHeader.typ;
      if (typ !== undefined && !ACCEPTED_TYPES.has(typ.toLowerCase())) {
        throw invalidToken(`token type "${typ}" is not an access token`);
      }
      payload = result.payload;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof errors.JOSEError) throw invalidToken(describeFailure(error));
      throw error;
    }
    const userId = payload.sub;
    const orgId = payload.org_id;
    if (typeof userId !== "string" || !UUID.test(userId))
      throw invalidToken('token claim "sub" must be a UUID');
    if (typeof orgId !== "string" || !UUID.test(orgId)) {
      throw invalidToken('token claim "org_id" must be a UUID');
    }
    const scopes = readScopes(payload);
    if (!scopes.has(scope)) {
      throw challenge(
        "permission_denied",
        `token lacks the scope "${scope}"`,
        `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"`,
      );
    }
    return { userId: userId.toLowerCase(), orgId: orgId.toLowerCase(), scopes };
  };
}

/** `scope` (space-delimited, RFC 9068) and `scp` (an array). */
function readScopes(payload: Record<string, unknown>): Set<string> {
  const scopes = new Set<string>();
  if (typeof payload.scope === "string") {
    for (const scope of payload.scope.split(" ")) if (scope !== "") scopes.add(scope);
  }
  if (Array.isArray(payload.scp)) {
    for (const scope of payload.scp) if (typeof scope === "string") scopes.add(scope);
  }
  return scopes;
}

function describeFailure(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return "token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return `token has no "${error.claim}" claim`;
    const byClaim: Record<string, string> = {
      nbf: "token is not yet valid",
      iat: "token was issued in the future",
      iss: "token has the wrong issuer",
      aud: "token has the wrong audience",
    };
    return byClaim[error.claim] ?? `token claim "${error.claim}" is invalid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "token signature algorithm is not allowed";
  if (error instanceof errors.JWKSNoMatchingKey) return "token is signed with an unknown key";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (error instanceof errors.JOSENotSupported) return "token uses an unsupported algorithm or key";
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return "token is malformed";
  return "token could not be verified";
}

function invalidToken(message: string): ApiError {
  return challenge(
    "unauthenticated",
    message,
    `Bearer realm="${REALM}", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`,
  );
}

function challenge(code: "unauthenticated" | "permission_denied", message: string, header: string): ApiError {
  return new ApiError(code, message, [], { "www-authenticate": header });
}
