import type { DescMethod } from "@bufbuild/protobuf";
import { requestHeaders } from "@folio/proto";

/** A request header a method reads, with the rule of `(folio.v1.request_headers)` compiled. */
export interface RequestHeaderRule {
  /** The header's name, lower-case, as `Headers` are read. */
  readonly header: string;
  /** The header's name as documented (`Idempotency-Key`), for messages. */
  readonly name: string;
  /** Undefined when `value` follows the rule; else the rule, to tell the client (`must be ...`). */
  broken(value: string): string | undefined;
}

/**
 * The rule of a header a method declares in the proto, which the OpenAPI document describes from
 * the same option: the server enforces what clients read. Throws at start-up when the method does
 * not declare it.
 */
export function requestHeaderRule(method: DescMethod, name: string): RequestHeaderRule {
  const declared = requestHeaders(method).find((h) => h.name.toLowerCase() === name.toLowerCase());
  if (declared === undefined) {
    throw new Error(`${method.parent.typeName}.${method.name} declares no request header ${name}`);
  }
  const pattern = declared.pattern === "" ? undefined : new RegExp(declared.pattern);
  const max = declared.maxLength === 0 ? Number.POSITIVE_INFINITY : declared.maxLength;
  return {
    header: declared.name.toLowerCase(),
    name: declared.name,
    broken(value) {
      const length = [...value].length;
      const follows = length >= declared.minLength && length <= max && (pattern?.test(value) ?? true);
      return follows ? undefined : declared.rule;
    },
  };
}
