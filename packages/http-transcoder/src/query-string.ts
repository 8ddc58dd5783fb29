import type { DescField } from "@bufbuild/protobuf";
import type { ReflectMessage } from "@bufbuild/protobuf/reflect";
import { setFieldPathValue } from "./field-value.js";
import { parseFormUrlencoded } from "./form-urlencoded.js";
import type { HttpRoute } from "./http-route.js";
import type { FieldViolation } from "./invalid-argument.js";
import { describeValueError } from "./path-variables.js";
import { type OneofMember, oneofMembers, type QueryTarget, resolveQueryName } from "./query-binding.js";

/**
 * Sets the fields a request's query string names (see {@link resolveQueryName} for which may be
 * set); every parameter that cannot be set is a violation, named as the client wrote it.
 *
 * @private
 */
export type QueryStringSetter = (
  message: () => ReflectMessage,
  query: string,
  hasBody: boolean,
  violations: FieldViolation[],
) => void;

/** A oneof member a request sets, named as the client wrote it (a query parameter, a path variable). */
interface SetOneofMember extends OneofMember {
  readonly name: string;
}

/** Compiles the {@link QueryStringSetter} of a route. @private */
export function createQueryStringSetter(route: HttpRoute): QueryStringSetter {
  // The oneof members the path sets, whatever the request: a query parameter for another member of
  // one of those oneofs conflicts with it.
  const pathOneofs = new Map<string, SetOneofMember>();
  for (const variable of route.pathVariables) {
    const name = variable.fields.map((f) => f.jsonName).join(".");
    for (const member of oneofMembers(variable.fields)) pathOneofs.set(member.oneof, { ...member, name });
  }
  const bodyField = route.bodyField;
  // Likewise the body field, when a body is sent.
  const bodyOneof = bodyField === undefined ? undefined : oneofMembers([bodyField])[0];
  const targets = new Map<string, QueryTarget>();
  const resolve = (name: string): QueryTarget => {
    let target = targets.get(name);
    if (target === undefined) {
      target = resolveQueryName(route, name);
      // Names are chosen by clients: remember a bounded number of them.
      if (targets.size < 1000) targets.set(name, target);
    }
    return target;
  };
  return (message, query, hasBody, violations) => {
    const seen = new Set<string>();
    // http.proto leaves a oneof set twice to the transcoder; a JSON body with two members of a
    // oneof is refused, and so is a query string that sets two (the last would win silently).
    const oneofs = new Map(pathOneofs);
    if (bodyOneof !== undefined && hasBody) {
      oneofs.set(bodyOneof.oneof, { ...bodyOneof, name: (bodyField as DescField).jsonName });
    }
    for (const [name, value] of parseFormUrlencoded(query)) {
      const target = resolve(name);
      if (target.kind === "invalid") {
        violations.push({ field: name, description: target.description });
        continue;
      }
      if (!target.repeated) {
        if (seen.has(target.protoName)) {
          violations.push({ field: name, description: "set more than once, but the field is not repeated" });
          continue;
        }
        seen.add(target.protoName);
      }
      const conflict = oneofConflict(target, oneofs);
      if (conflict !== undefined) {
        violations.push({ field: name, description: conflict });
        continue;
      }
      for (const member of target.oneofs) {
        if (!oneofs.has(member.oneof)) oneofs.set(member.oneof, { ...member, name });
      }
      try {
        setFieldPathValue(message(), target.fields, target.parse(value));
      } catch (error) {
        violations.push({ field: name, description: describeValueError(error, "invalid value") });
      }
    }
  };
}

/** Why a parameter conflicts with another member of its oneof set before it, if it does. */
function oneofConflict(
  target: QueryTarget & { kind: "field" },
  oneofs: ReadonlyMap<string, SetOneofMember>,
): string | undefined {
  for (const member of target.oneofs) {
    const set = oneofs.get(member.oneof);
    if (set !== undefined && set.field !== member.field) {
      return `at most one field of oneof "${member.oneofName}" may be set, and "${set.name}" is set too`;
    }
  }
  return undefined;
}
