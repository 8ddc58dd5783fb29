import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { Path } from "@bufbuild/protobuf/reflect";
import type { Validator, Violation } from "@bufbuild/protovalidate";
import type { FieldViolation } from "@folio/googleapis";
import { ruleDescription } from "./options.js";

/**
 * How Folio tells a client which request fields break their `buf.validate` rules: as
 * `google.rpc.BadRequest` field violations, each field named by its JSON path (`parentId`), its
 * description the field's `(folio.v1.rule_description)` for a standard rule (protovalidate's own
 * message names the rule: "value does not match regex pattern ...") and the `message` of a CEL
 * rule. One mapping for every side that checks requests: the server and the browser app.
 */

/** The BadRequest field violations of protovalidate's violations: one per field and description. */
export function fieldViolations(violations: readonly Violation[]): FieldViolation[] {
  const result: FieldViolation[] = [];
  const seen = new Set<string>();
  for (const violation of violations) {
    const field = jsonPath(violation.field);
    const description = describeViolation(violation);
    const key = `${field}\n${description}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ field, description });
  }
  return result;
}

/**
 * What protovalidate finds wrong with a request, as BadRequest field violations (none when it is
 * valid). A rule that cannot be evaluated (a CEL expression that does not compile) is a fault of
 * the proto, not of the request: it throws.
 */
export function requestViolations<Desc extends DescMessage>(
  validator: Validator,
  schema: Desc,
  request: MessageShape<Desc>,
): FieldViolation[] {
  const result = validator.validate(schema, request);
  if (result.kind === "error") throw result.error;
  return result.kind === "invalid" ? fieldViolations(result.violations) : [];
}

/** A violation's sentence: its CEL rule's message, or its field's rule description. */
function describeViolation(violation: Violation): string {
  const rule = violation.rule[0];
  const celRule =
    rule !== undefined && "kind" in rule && rule.kind === "field" && rule.name.startsWith("cel");
  const leaf = lastField(violation.field);
  if (celRule || leaf === undefined) return violation.message;
  return ruleDescription(leaf) ?? violation.message;
}

/** A field path as JSON names: `parentId`, `labels["a"]`, `items[2].name`. */
function jsonPath(path: Path): string {
  let out = "";
  for (const item of path) {
    if (item.kind === "field") out += `${out === "" ? "" : "."}${item.jsonName}`;
    else if (item.kind === "list_sub") out += `[${item.index}]`;
    else if (item.kind === "map_sub") out += `[${JSON.stringify(String(item.key))}]`;
  }
  return out;
}

function lastField(path: Path) {
  for (let i = path.length - 1; i >= 0; i--) {
    const item = path[i];
    if (item?.kind === "field") return item;
  }
  return undefined;
}
