import { services } from "@folio/api-document";
import { assertEveryMethodHasScope } from "@folio/auth";
import { declaredScopes, requiredScope } from "@folio/proto";

export { apiScopeNames, restApi, services } from "@folio/api-document";

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
