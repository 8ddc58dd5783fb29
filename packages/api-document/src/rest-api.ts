import type { DescService } from "@bufbuild/protobuf";
import {
  declaredScopes,
  effectiveErrors,
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
  /** The errors each method can return: its service's `(folio.v1.shared_errors)` and its own `(folio.v1.errors)`. */
  errorResponses: effectiveErrors,
  /** The scope each method requires, `(folio.v1.required_scope)`. */
  requiredScope,
  /** The request headers a method reads beyond every call's, with their rules, `(folio.v1.request_headers)`. */
  requestHeaders,
} as const;

/** Every scope of the API with what it allows, `(folio.v1.scopes)` of its services. */
export const apiScopes: readonly Scope[] = services.flatMap((service) => declaredScopes(service));

/**
 * The name of every scope of the API, once each: those its services declare, and any a method
 * requires (the server refuses to start on one undeclared, but the token command does not check).
 * What a development token carries unless fewer are asked for, so a new method's scope is in it.
 */
export const apiScopeNames: readonly string[] = [
  ...new Set([
    ...apiScopes.map((scope) => scope.name),
    ...services.flatMap((service) => service.methods.flatMap((method) => requiredScope(method) ?? [])),
  ]),
];
