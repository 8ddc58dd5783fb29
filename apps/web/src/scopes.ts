import { folioServices } from "@folio/client";
import { declaredScopes } from "@folio/proto";

/** A scope a token may carry, and what it allows. */
export interface ApiScope {
  readonly name: string;
  readonly description: string;
}

/**
 * Every scope of the API, as its services declare them in the proto: a scope added there is
 * named on the connection page with no change here.
 */
export const API_SCOPES: readonly ApiScope[] = [
  ...new Map(
    folioServices
      .flatMap((service) => declaredScopes(service))
      .map((scope) => [scope.name, { name: scope.name, description: scope.description }] as const),
  ).values(),
];
