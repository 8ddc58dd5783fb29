import { type DescField, type DescMethod, type DescService, getOption, hasOption } from "@bufbuild/protobuf";
import {
  always_set,
  type ErrorResponse,
  errors,
  http_success_status,
  type RequestHeader,
  request_headers,
  required_scope,
  rule_description,
  type Scope,
  scopes,
  shared_errors,
} from "./gen/folio/v1/options_pb.js";

/**
 * The scope a method requires, as declared with `(folio.v1.required_scope)`. Read once per method:
 * the auth interceptor asks for every call, and protobuf-es reads an option by building a message
 * of its extension each time (3% of a small gRPC call's CPU in a profile).
 */
export function requiredScope(method: DescMethod): string | undefined {
  if (scopeOf.has(method)) return scopeOf.get(method);
  const scope = hasOption(method, required_scope) ? getOption(method, required_scope) : undefined;
  scopeOf.set(method, scope);
  return scope;
}

const scopeOf = new WeakMap<DescMethod, string | undefined>();

/** HTTP status of a successful REST response, as declared with `(folio.v1.http_success_status)`; 200 by default. */
export function successStatus(method: DescMethod): number {
  return hasOption(method, http_success_status) ? getOption(method, http_success_status) : 200;
}

/**
 * The error responses a method declares itself with `(folio.v1.errors)`, as written; what clients
 * are told merges them with its service's ({@link sharedErrors}): `effectiveErrors`.
 */
export function declaredErrors(method: DescMethod): readonly ErrorResponse[] {
  return getOption(method, errors);
}

/** The error responses every method of a service can return, as declared with `(folio.v1.shared_errors)`. */
export function sharedErrors(service: DescService): readonly ErrorResponse[] {
  return getOption(service, shared_errors);
}

/** Whether responses always set the field, as declared with `(folio.v1.always_set)`. */
export function alwaysSet(field: DescField): boolean {
  return getOption(field, always_set);
}

/** The scopes a service declares with `(folio.v1.scopes)`, each with what it allows. */
export function declaredScopes(service: DescService): readonly Scope[] {
  return getOption(service, scopes);
}

/** The request headers a method reads, with their rules, as declared with `(folio.v1.request_headers)`. */
export function requestHeaders(method: DescMethod): readonly RequestHeader[] {
  return getOption(method, request_headers);
}

/**
 * The sentence a client is told when a field breaks its `buf.validate` standard rules, as declared
 * with `(folio.v1.rule_description)`; undefined when the field declares none. Read once per field,
 * like {@link requiredScope}.
 */
export function ruleDescription(field: DescField): string | undefined {
  if (descriptionOf.has(field)) return descriptionOf.get(field);
  const description = hasOption(field, rule_description) ? getOption(field, rule_description) : undefined;
  descriptionOf.set(field, description);
  return description;
}

const descriptionOf = new WeakMap<DescField, string | undefined>();
