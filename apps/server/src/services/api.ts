import type { DescService } from "@bufbuild/protobuf";
import { assertEveryMethodHasScope } from "@folio/auth";
import {
  declaredScopes,
  documentedErrors,
  FolderService,
  ProjectService,
  requestHeaders,
  requiredScope,
  type Scope,
  successStatus,
} from "@folio/proto";

/** The services of the Folio API, in the order they are mounted and documented. */
export const services: readonly DescService[] = [FolderService, ProjectService];

/**
 * What REST clients see of the API, stated once: the transcoder serves it and the OpenAPI
 * document describes it, so the two cannot disagree. Each fact is read from the proto.
 */
export const restApi = {
  services,
  /** The status of a success, `(folio.v1.http_success_status)`: 201 for a create. */
  successStatus,
  /** Next pages travel in a `Link` header (AIP-158 over REST), not in the body. */
  pageLinks: true,
  /** The errors each method documents, `(folio.v1.errors)`. */
  errorResponses: documentedErrors,
  /** The scope each method requires, `(folio.v1.required_scope)`. */
  requiredScope,
  /** The request headers a method reads beyond every call's, with their rules, `(folio.v1.request_headers)`. */
  requestHeaders,
} as const;

/** Every scope of the API with what it allows, `(folio.v1.scopes)` of its services. */
export const apiScopes: readonly Scope[] = services.flatMap((service) => declaredScopes(service));

/**
 * Refuses to start unless every method of the API requires a scope, and every scope required is
 * one its service declares (so the document describes each scope a token may need).
 */
export function assertScopesDeclared(): void {
  assertEveryMethodHasScope(
    services.flatMap((service) => service.methods),
    requiredScope,
  );
  for (const service of services) {
    const declared = new Set(declaredScopes(service).map((scope) => scope.name));
    for (const method of service.methods) {
      const scope = requiredScope(method);
      if (scope !== undefined && !declared.has(scope)) {
        throw new Error(
          `${service.typeName}.${method.name} requires ${scope}, which ${service.typeName} does not declare in (folio.v1.scopes)`,
        );
      }
    }
  }
}
