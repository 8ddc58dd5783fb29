import {
  create,
  type DescMessage,
  type DescMethod,
  type DescMethodUnary,
  type Message,
  type MessageShape,
  ScalarType,
} from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { createValidator, type Validator } from "@bufbuild/protovalidate";
import type { FieldViolation } from "@folio/googleapis";
import { fieldViolations, linearRegexMatch } from "@folio/proto";

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
 * each request compiled now, so that no call pays for it (a request type's first validation
 * compiles its rules, 70-85 ms, and a rule's regular expression is compiled the first time a value
 * is matched against it, up to 10 ms); a rule that does not compile stops the start.
 */
export function createRequestValidation(
  methods: readonly DescMethod[],
  ownRules: readonly ServiceRules[],
): RequestValidation {
  const validator = createValidator({ regexMatch: linearRegexMatch });
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
    check(everyFieldSet(method.input), new Headers());
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
      // The mapping the browser app uses too: one sentence per rule, in both places.
      return fieldViolations(result.violations);
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

/** Text of several kinds of character (white space, control, punctuation, non-ASCII) to match rules against. */
const SAMPLE_TEXT = " x/.\u0001\u00e9\u200b-";

/**
 * A message of `schema` with each scalar field set (strings to {@link SAMPLE_TEXT}, numbers to 1), so that
 * validating it evaluates every rule of those fields: a rule of an unset optional field, or of a
 * field whose `required` fails, is not evaluated.
 */
function everyFieldSet(schema: DescMessage): Message {
  const message = reflect(schema);
  for (const field of schema.fields) {
    if (field.fieldKind !== "scalar") continue;
    switch (field.scalar) {
      case ScalarType.STRING:
        message.set(field, SAMPLE_TEXT);
        break;
      case ScalarType.BOOL:
        message.set(field, true);
        break;
      case ScalarType.BYTES:
        message.set(field, new Uint8Array(1));
        break;
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        message.set(field, 1n);
        break;
      default:
        message.set(field, 1);
    }
  }
  return message.message;
}
