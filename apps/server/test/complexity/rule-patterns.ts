// The regular expressions the API's rules declare, read from the descriptors, so that a rule added
// to a proto file is measured without anyone listing it.
import { type DescFile, type DescMessage, type DescMethod, getOption } from "@bufbuild/protobuf";
import {
  type FieldRules,
  field as fieldRules,
  message as messageRules,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { requestHeaders } from "@folio/proto";
import { services } from "../../src/services/api.js";

/** A regular expression a rule declares, and where. */
export interface DeclaredPattern {
  readonly pattern: string;
  /** `folio.v1.CreateFolderRequest.name (name.not_dots)`. */
  readonly where: string;
}

/** The API's package: the files of its services, and those they import from it. */
const PACKAGE = "folio.v1";

/**
 * Every RE2 pattern of the buf.validate rules in the API's proto files (the `folio.v1` package):
 * `string.pattern` and `bytes.pattern` (of a field, its list items, its map keys and values), and
 * each `matches(r'...')` of a field's or a message's CEL rules, once each with every rule that
 * declares it. Throws for a `matches` whose pattern is not a raw string literal, which this cannot
 * read: that rule would go unmeasured.
 */
export function declaredRulePatterns(): DeclaredPattern[] {
  const found: DeclaredPattern[] = [];
  for (const file of apiFiles()) {
    for (const message of messagesOf(file.messages)) {
      const rules = getOption(message, messageRules);
      for (const rule of [
        ...rules.cel,
        ...rules.celExpression.map((expression) => ({ id: "", expression })),
      ]) {
        found.push(...celPatterns(rule, message.typeName));
      }
      for (const field of message.fields) {
        const where = `${message.typeName}.${field.name}`;
        found.push(...fieldPatterns(getOption(field, fieldRules), where));
      }
    }
  }
  // One entry a pattern, naming every rule that declares it: the cost is the pattern's.
  const byPattern = new Map<string, string[]>();
  for (const { pattern, where } of found) byPattern.set(pattern, [...(byPattern.get(pattern) ?? []), where]);
  return [...byPattern].map(([pattern, where]) => ({ pattern, where: where.join(", ") }));
}

/**
 * Every ECMAScript pattern of a request header's rule (`(folio.v1.request_headers)`), with the
 * method and header it belongs to.
 */
export function declaredHeaderPatterns(): (DeclaredPattern & { header: string; method: DescMethod })[] {
  return methods.flatMap((method) =>
    requestHeaders(method)
      .filter((header) => header.pattern !== "")
      .map((header) => ({
        pattern: header.pattern,
        header: header.name,
        method,
        where: `${method.parent.typeName}.${method.name} header ${header.name}`,
      })),
  );
}

const methods = services.flatMap((service) => service.methods);

function apiFiles(): DescFile[] {
  const files = new Map<string, DescFile>();
  const visit = (file: DescFile) => {
    if (file.proto.package !== PACKAGE || files.has(file.name)) return;
    files.set(file.name, file);
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const service of services) visit(service.file);
  return [...files.values()];
}

function messagesOf(messages: readonly DescMessage[]): DescMessage[] {
  return messages.flatMap((message) => [message, ...messagesOf(message.nestedMessages)]);
}

function fieldPatterns(rules: FieldRules, where: string): DeclaredPattern[] {
  const found: DeclaredPattern[] = [];
  for (const rule of [...rules.cel, ...rules.celExpression.map((expression) => ({ id: "", expression }))]) {
    found.push(...celPatterns(rule, where));
  }
  const type = rules.type;
  if (type.case === "string" || type.case === "bytes") {
    // Unset, the (proto2) field reads as empty; bytes rules state their pattern as text too.
    const pattern = type.value.pattern;
    if (pattern !== "") found.push({ pattern, where: `${where} (${type.case}.pattern)` });
  }
  if (type.case === "repeated" && type.value.items !== undefined) {
    found.push(...fieldPatterns(type.value.items, `${where} items`));
  }
  if (type.case === "map") {
    if (type.value.keys !== undefined) found.push(...fieldPatterns(type.value.keys, `${where} keys`));
    if (type.value.values !== undefined) found.push(...fieldPatterns(type.value.values, `${where} values`));
  }
  return found;
}

/** The patterns of a CEL rule's `matches` calls, as raw string literals (`r'...'`, `r"..."`). */
function celPatterns(rule: { id: string; expression: string }, where: string): DeclaredPattern[] {
  const { id, expression } = rule;
  const found: DeclaredPattern[] = [];
  for (const call of expression.matchAll(/matches\(/g)) {
    const rest = expression.slice((call.index ?? 0) + call[0].length);
    const literal = /^\s*r(?:'([^']*)'|"([^"]*)")\s*\)/.exec(rest);
    if (literal === null) {
      throw new Error(`${where}: a matches() whose pattern is not a raw string literal: ${expression}`);
    }
    found.push({
      pattern: (literal[1] ?? literal[2]) as string,
      where: `${where} (${id === "" ? "cel" : id})`,
    });
  }
  return found;
}
