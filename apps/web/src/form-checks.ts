import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { linearRegexMatch, requestViolations } from "@folio/proto";
import { type ErrorReport, FIELD_LABELS } from "./errors.js";

/**
 * The forms' checks before sending: protovalidate, in the browser, runs the request's
 * `buf.validate` rules from the proto, and the violations are told as the server tells them
 * (`requestViolations` of @folio/proto: the same JSON field names and descriptions), next to
 * their fields. The server checks again: what it refuses is shown the same way.
 */

/**
 * Built once: it compiles each message type's rules on its first use (tens of milliseconds), and
 * keeps them.
 */
const validator = createValidator({ regexMatch: linearRegexMatch });

/**
 * The sessionStorage entry that turns the checks off in this tab, so that requests reach the
 * server as typed (the tests show the server's refusals with it). No link or URL can set it.
 */
export const SKIP_FORM_CHECKS = "folio.skipFormChecks";

/**
 * What is wrong with a request by its rules, as an error report for its form (the sentences are
 * those of the server's refusal), or undefined when it may be sent.
 */
export function checkRequest<Desc extends DescMessage>(
  schema: Desc,
  init: MessageInitShape<Desc>,
): ErrorReport | undefined {
  if (formChecksSkipped()) return undefined;
  const violations = requestViolations(validator, schema, create(schema, init));
  if (violations.length === 0) return undefined;
  const fields: Record<string, string> = {};
  for (const { field, description } of violations) {
    const sentence = `${FIELD_LABELS[field] ?? field} ${description}.`;
    fields[field] = fields[field] === undefined ? sentence : `${fields[field]} ${sentence}`;
  }
  const count = Object.keys(fields).length;
  return {
    summary: count === 1 ? "One field needs a change." : `${count} fields need a change.`,
    fields,
    retryAfterSeconds: undefined,
    requestId: undefined,
    fixConnection: false,
  };
}

function formChecksSkipped(): boolean {
  try {
    return globalThis.sessionStorage?.getItem(SKIP_FORM_CHECKS) === "1";
  } catch {
    // Storage refused (a sandboxed frame): check.
    return false;
  }
}
