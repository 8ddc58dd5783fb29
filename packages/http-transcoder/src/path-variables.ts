import type { DescField } from "@bufbuild/protobuf";
import type { ReflectMessage } from "@bufbuild/protobuf/reflect";
import { type FieldValueParser, fieldValueParser, setFieldPathValue } from "./field-value.js";
import type { HttpRoute } from "./http-route.js";
import type { FieldViolation } from "./invalid-argument.js";

/**
 * Sets the fields a route's path variables bind, from a request's raw path segments; a value that
 * does not decode or parse is a violation, named as the variable's field path in JSON names.
 *
 * @private
 */
export type PathVariablesSetter = (
  message: () => ReflectMessage,
  segments: readonly string[],
  violations: FieldViolation[],
) => void;

interface PathSetter {
  readonly fields: readonly DescField[];
  readonly name: string;
  readonly parse: FieldValueParser;
  readonly start: number;
  /** The end of the capture, or -1 for "to the end of the path" (`**`). */
  readonly end: number;
  readonly multiSegment: boolean;
}

/** Compiles the {@link PathVariablesSetter} of a route. @private */
export function createPathVariablesSetter(route: HttpRoute): PathVariablesSetter {
  const templateLength = route.template.segments.length;
  const endsDeep = route.template.segments[templateLength - 1]?.kind === "deep-wildcard";
  const setters: PathSetter[] = route.pathVariables.map((variable) => ({
    fields: variable.fields,
    name: variable.fields.map((f) => f.jsonName).join("."),
    // Path variables are validated by collectHttpRoutes: a parser exists.
    parse: fieldValueParser(variable.fields[variable.fields.length - 1] as DescField) as FieldValueParser,
    start: variable.start,
    end: endsDeep && variable.end === templateLength ? -1 : variable.end,
    multiSegment: variable.multiSegment,
  }));
  return (message, segments, violations) => {
    for (const setter of setters) {
      const raw =
        setter.end === setter.start + 1
          ? (segments[setter.start] as string)
          : segments.slice(setter.start, setter.end === -1 ? undefined : setter.end).join("/");
      try {
        const text = setter.multiSegment ? decodeMultiSegment(raw) : decodeURIComponent(raw);
        setFieldPathValue(message(), setter.fields, setter.parse(text));
      } catch (error) {
        violations.push({
          field: setter.name,
          description: describeValueError(error, "malformed percent-encoding"),
        });
      }
    }
  };
}

/**
 * Percent-decodes the value of a multi-segment variable, except `%2F`: http.proto, "the server
 * side does the reverse decoding, except "%2F" and "%2f" are left as-is", so that an encoded
 * slash stays distinguishable from a separator.
 */
function decodeMultiSegment(raw: string): string {
  if (!raw.includes("%")) {
    return raw;
  }
  return raw
    .split(/(%2[Ff])/)
    .map((part, index) => (index % 2 === 1 ? part : decodeURIComponent(part)))
    .join("");
}

/** The description of a value that does not decode (a URIError) or parse (the parser's message). @private */
export function describeValueError(error: unknown, fallback: string): string {
  return error instanceof URIError ? fallback : error instanceof Error ? error.message : fallback;
}
