import type { DescService } from "@bufbuild/protobuf";
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
