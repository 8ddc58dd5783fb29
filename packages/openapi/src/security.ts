import type { DescMethod } from "@bufbuild/protobuf";
import type { OAuthFlowsObject, SecurityRequirementObject, SecuritySchemeObject } from "./openapi-types.js";

/** How the operations are authorised: the scope each method requires, and how tokens are had. */
export interface SecurityOptions {
  /** The scope a method requires, or undefined for a method that needs no token. */
  readonly requiredScope: (method: DescMethod) => string | undefined;
  /** The kind of security scheme. Default: `{ type: "bearer" }`. */
  readonly scheme?: BearerScheme | OAuth2Scheme | OpenIdConnectScheme;
  /** Name of the scheme among the components. Default: `bearerAuth`, `oauth2` or `openIdConnect`. */
  readonly schemeName?: string;
  /** Description of the scheme: where tokens come from, what they carry. */
  readonly description?: string;
  /** What each scope allows, by scope; a scope not listed is described by the operations needing it. */
  readonly scopes?: Readonly<Record<string, string>>;
}

/**
 * A bearer token (RFC 6750) in the `Authorization` header. OpenAPI defines no scopes for `http`
 * schemes, so the scope an operation needs is named in its description, and the scheme's
 * description lists them all.
 */
export interface BearerScheme {
  readonly type: "bearer";
  /** Format of the tokens. Default: `JWT`. */
  readonly bearerFormat?: string;
}

/**
 * OAuth 2.0: bearer tokens from an authorization server, by the given flows. The scopes of the
 * flows are filled in: every scope an operation requires.
 */
export interface OAuth2Scheme {
  readonly type: "oauth2";
  readonly flows: {
    readonly [F in keyof OAuthFlowsObject]?: Omit<NonNullable<OAuthFlowsObject[F]>, "scopes">;
  };
}

/** OpenID Connect: bearer tokens of the provider whose discovery document is at `openIdConnectUrl`. */
export interface OpenIdConnectScheme {
  readonly type: "openIdConnect";
  readonly openIdConnectUrl: string;
}

/**
 * The security scheme of the document and the requirement of each operation, collected as
 * operations are documented.
 *
 * @private
 */
export interface SecurityDocumenter {
  /** The `security` of an operation of `method`, whose id is `operationId`. */
  requirement(method: DescMethod, operationId: string): SecurityRequirementObject[];
  /** The scheme, by name, once every operation is documented. */
  schemes(): Record<string, SecuritySchemeObject>;
}

/** @private */
export function createSecurityDocumenter(options: SecurityOptions): SecurityDocumenter {
  const scheme = options.scheme ?? { type: "bearer" };
  const name =
    options.schemeName ??
    (scheme.type === "bearer" ? "bearerAuth" : scheme.type === "oauth2" ? "oauth2" : "openIdConnect");
  // The operations needing each scope, in the order they are documented.
  const needers = new Map<string, string[]>();

  return {
    requirement(method, operationId) {
      const scope = options.requiredScope(method);
      if (scope === undefined) return [];
      needers.set(scope, [...(needers.get(scope) ?? []), operationId]);
      return [{ [name]: scheme.type === "bearer" ? [] : [scope] }];
    },
    schemes() {
      const scopes: Record<string, string> = {};
      for (const [scope, operations] of needers) {
        scopes[scope] =
          options.scopes?.[scope] ?? `Needed by ${operations.map((id) => `\`${id}\``).join(", ")}.`;
      }
      const description = options.description;
      // Where the scheme has no place for scopes, or the provider lists them: in the description.
      const list = Object.entries(scopes).map(([scope, text]) => `- \`${scope}\`: ${text}`);
      const withScopes = [description, list.length > 0 ? `Scopes:\n\n${list.join("\n")}` : undefined]
        .filter((part) => part !== undefined)
        .join("\n\n");
      switch (scheme.type) {
        case "bearer":
          return {
            [name]: {
              type: "http",
              scheme: "bearer",
              bearerFormat: scheme.bearerFormat ?? "JWT",
              ...(withScopes === "" ? {} : { description: withScopes }),
            },
          };
        case "oauth2": {
          const flows: OAuthFlowsObject = {};
          for (const [flow, urls] of Object.entries(scheme.flows)) {
            (flows as Record<string, unknown>)[flow] = { ...urls, scopes: { ...scopes } };
          }
          return { [name]: { type: "oauth2", flows, ...(description === undefined ? {} : { description }) } };
        }
        case "openIdConnect":
          // The provider lists its scopes; the document says which ones the operations need (in
          // their requirements, and here with what they allow).
          return {
            [name]: {
              type: "openIdConnect",
              openIdConnectUrl: scheme.openIdConnectUrl,
              ...(withScopes === "" ? {} : { description: withScopes }),
            },
          };
      }
    },
  };
}
