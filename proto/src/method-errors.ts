import type { DescMethod } from "@bufbuild/protobuf";
import type { ErrorResponse } from "./gen/folio/v1/options_pb.js";
import { declaredErrors, requiredScope, sharedErrors } from "./options.js";

/**
 * The error responses a method can return, as clients are told them: its own `(folio.v1.errors)`,
 * then its service's `(folio.v1.shared_errors)` of the codes it does not declare itself (a
 * method's condition for a code is the more specific one), placeholders filled in. The OpenAPI
 * document (and so the docs page) reads a method's errors here only, so that none drops a shared one.
 */
export function effectiveErrors(method: DescMethod): readonly ErrorResponse[] {
  const own = declaredErrors(method);
  const ownCodes = new Set(own.map((error) => error.code));
  const shared = sharedErrors(method.parent).filter((error) => !ownCodes.has(error.code));
  return [...own, ...shared].map((error) => {
    const condition = fillPlaceholders(error.condition, method);
    return condition === error.condition ? error : { ...error, condition };
  });
}

/** What each `{name}` in a condition stands for, for a method. */
const PLACEHOLDERS = new Map<string, (method: DescMethod) => string | undefined>([
  ["required_scope", requiredScope],
]);

/**
 * The condition with each `{name}` replaced by the method's value. An unknown name, or one the
 * method has no value for, throws: the document would otherwise show clients the braces.
 */
function fillPlaceholders(condition: string, method: DescMethod): string {
  return condition.replace(/\{([a-z_]+)\}/g, (placeholder, name: string) => {
    const read = PLACEHOLDERS.get(name);
    const value = read?.(method);
    if (value !== undefined) return value;
    const where = `${method.parent.typeName}.${method.name}`;
    throw new Error(
      read === undefined
        ? `${where}: ${placeholder} in an error condition is not a placeholder (known: ${[...PLACEHOLDERS.keys()].map((key) => `{${key}}`).join(", ")})`
        : `${where}: ${placeholder} in an error condition, but the method has none`,
    );
  });
}
