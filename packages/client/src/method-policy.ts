import { type DescField, type DescMethod, type Message, ScalarType } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";

/**
 * When a call of a method that failed for a passing reason may be sent again: `always` (it changes
 * nothing, or changes the same thing however often it runs), `with-request-id` (only when the
 * request carries its AIP-155 idempotency key), `never`.
 */
export type RetryRule = "always" | "with-request-id" | "never";

const rules = new WeakMap<DescMethod, RetryRule>();

/** The retry rule a method's proto declares: its `idempotency_level`, else its `request_id` field. */
export function retryRule(method: DescMethod): RetryRule {
  let rule = rules.get(method);
  if (rule === undefined) {
    rule = declaresIdempotent(method) ? "always" : requestIdField(method) ? "with-request-id" : "never";
    rules.set(method, rule);
  }
  return rule;
}

/** Whether the method's `idempotency_level` says that running it twice does no harm. */
function declaresIdempotent(method: DescMethod): boolean {
  return (
    method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS ||
    method.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT
  );
}

/** The request's AIP-155 idempotency key, `string request_id`, when the method takes one. */
export function requestIdField(method: DescMethod): DescField | undefined {
  return method.input.fields.find(
    (field) =>
      field.name === "request_id" && field.fieldKind === "scalar" && field.scalar === ScalarType.STRING,
  );
}

/**
 * Gives the request an idempotency key (a random UUID) unless the caller set one, so that every
 * attempt of the call names the same request and the server acts on it once.
 */
export function fillRequestId(method: DescMethod, message: Message): void {
  const field = requestIdField(method);
  if (field === undefined) return;
  const request = reflect(method.input, message);
  if (request.get(field) === "" || !request.isSet(field)) request.set(field, crypto.randomUUID());
}

/** Whether a failed call of `method` with `message` may be sent again. */
export function mayRetry(method: DescMethod, message: Message): boolean {
  switch (retryRule(method)) {
    case "always":
      return true;
    case "with-request-id": {
      const field = requestIdField(method) as DescField;
      return reflect(method.input, message).get(field) !== "";
    }
    case "never":
      return false;
  }
}
