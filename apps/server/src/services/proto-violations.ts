import type { Violation } from "@bufbuild/protovalidate";
import type { FieldViolation } from "@folio/googleapis";
import { ruleDescription } from "@folio/proto";

/**
 * A protovalidate violation as Folio tells it to clients: the field by its JSON name (`parentId`,
 * `filters[2].value`), and the field's `(folio.v1.rule_description)` when a standard rule is
 * broken (protovalidate's own messages name the rule: "does not match regex pattern ..."). A CEL
 * rule's message is Folio's own sentence already.
 */
export function fieldViolationOf(violation: Violation): FieldViolation {
  const last = violation.field.at(-1);
  const declared = last?.kind === "field" && !isCelRule(violation) ? ruleDescription(last) : undefined;
  return { field: jsonPath(violation.field), description: declared ?? violation.message };
}

/** Whether the violated rule is a `cel` rule of the field (or of the message), not a standard one. */
function isCelRule(violation: Violation): boolean {
  const first = violation.rule[0];
  return first?.kind === "field" && first.name === "cel";
}

/** The path of a field as a client names it: JSON names, list indexes and map keys. */
function jsonPath(path: Violation["field"]): string {
  let text = "";
  for (const item of path) {
    switch (item.kind) {
      case "field":
        text += `${text === "" ? "" : "."}${item.jsonName}`;
        break;
      case "extension":
        text += `${text === "" ? "" : "."}[${item.typeName}]`;
        break;
      case "oneof":
        break;
      case "list_sub":
        text += `[${item.index}]`;
        break;
      case "map_sub":
        text += `[${JSON.stringify(String(item.key))}]`;
        break;
    }
  }
  return text;
}
