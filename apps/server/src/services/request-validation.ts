import {
  create,
  type DescMethod,
  type DescMethodUnary,
  type Message,
  type MessageShape,
} from "@bufbuild/protobuf";
import { createValidator, type Validator } from "@bufbuild/protovalidate";
import type { FieldViolation } from "@folio/googleapis";
import { fieldViolationOf } from "./proto-violations.js";

/**
 * The rules of a method's request that no `buf.validate` rule can say, in the service's own code:
 * every field (or header) they find at fault, by its JSON name; none when the request keeps them.
 */
export interface ServiceRules {
  readonly method: DescMethod;
  check(request: Message, headers: Headers): readonly FieldViolation[];
}

/** The service's own rules of `method`'s request (see {@link ServiceRules}). */
export function serviceRules<M extends DescMethodUnary>(
  method: M,
  check: (request: MessageShape<M["input"]>, headers: Headers) => readonly FieldViolation[],
): ServiceRules {
  return { method, check: check as ServiceRules["check"] };
}

/** The validation of the API's requests, built once at start-up. */
export interface RequestValidation {
  /**
   * Every rule the request of `method` breaks, the proto's (`buf.validate`) and the service's, in
   * the order of the request's fields, headers last; empty when it keeps them all, or when
   * `method` is not one of the API's.
   */
  check(method: DescMethod, request: Message, headers: Headers): readonly FieldViolation[];
}

/**
 * Builds the validation of `methods`' requests: one protovalidate validator, with the rules of
 * each request compiled now (a request type's first validation compiles them, 70-85 ms), so that
 * no call pays for it; a rule that does not compile stops the start.
 */
export function createRequestValidation(
  methods: readonly DescMethod[],
  ownRules: readonly ServiceRules[],
): RequestValidation {
  const validator = createValidator();
  const byMethod = new Map<DescMethod, (request: Message, headers: Headers) => readonly FieldViolation[]>();
  for (const method of methods) {
    const own = ownRules.find((rules) => rules.method === method);
    const fieldOrder = new Map(method.input.fields.map((field, index) => [field.jsonName, index]));
    const rank = (violation: FieldViolation) =>
      fieldOrder.get(violation.field.split(/[.[]/, 1)[0] ?? "") ?? fieldOrder.size;
    const check = (request: Message, headers: Headers) => {
      const found = [...protoViolations(validator, method, request), ...(own?.check(request, headers) ?? [])];
      return found.length === 0 ? found : distinct(found).sort((a, b) => rank(a) - rank(b));
    };
    check(create(method.input), new Headers());
    byMethod.set(method, check);
  }
  return {
    check: (method, request, headers) => byMethod.get(method)?.(request, headers) ?? [],
  };
}

function protoViolations(validator: Validator, method: DescMethod, request: Message): FieldViolation[] {
  const result = validator.validate(method.input, request);
  switch (result.kind) {
    case "valid":
      return [];
    case "invalid":
      return result.violations.map(fieldViolationOf);
    case "error":
      // A rule that does not compile, or a message of another type: the server's fault.
      throw result.error;
  }
}

/** The violations without repeats: several rules of a field may share its one description. */
function distinct(violations: readonly FieldViolation[]): FieldViolation[] {
  const seen = new Set<string>();
  return violations.filter((violation) => {
    const key = `${violation.field}\n${violation.description}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
