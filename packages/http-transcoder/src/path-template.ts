/**
 * The path templates of `google.api.http` rules. The grammar is the one documented in
 * google/api/http.proto ("Path template syntax"):
 *
 * ```
 * Template = "/" Segments [ Verb ] ;
 * Segments = Segment { "/" Segment } ;
 * Segment  = "*" | "**" | LITERAL | Variable ;
 * Variable = "{" FieldPath [ "=" Segments ] "}" ;
 * FieldPath = IDENT { "." IDENT } ;
 * Verb     = ":" LITERAL ;
 * ```
 */

/**
 * One segment of a parsed path template. Variables are expanded in place: `{name=shelves/*}`
 * contributes the segments `shelves` and `*`, and a {@link PathTemplateVariable} says which of
 * them it captures.
 */
export type PathTemplateSegment =
  /** A segment that must match exactly (compared after percent-decoding the request's segment). */
  | { readonly kind: "literal"; readonly value: string }
  /** `*`: exactly one non-empty path segment. */
  | { readonly kind: "wildcard" }
  /** `**`: zero or more path segments. Always the last segment of a template. */
  | { readonly kind: "deep-wildcard" };

/** A variable of a path template: `{name}`, `{name=*}`, `{book.name=shelves/*\/books/*}`. */
export interface PathTemplateVariable {
  /** The field path the variable binds, as proto field names: `["book", "name"]`. */
  readonly fieldPath: readonly string[];
  /** The variable's own template, `*` when none is given: `shelves/*`, `**`. */
  readonly pattern: string;
  /** Index in {@link PathTemplate.segments} of the first segment the variable captures. */
  readonly start: number;
  /** Index in {@link PathTemplate.segments} after the last segment the variable captures. */
  readonly end: number;
  /**
   * Whether the variable captures more than one segment (`{x=a/*}`, `{x=**}`), as opposed to
   * exactly one (`{x}`, `{x=*}`, `{x=a}`). The distinction decides percent-decoding: a
   * multi-segment value keeps `%2F` encoded, so that it cannot be confused with a separator.
   */
  readonly multiSegment: boolean;
}

/** A parsed path template. */
export interface PathTemplate {
  /** The template as written in the rule. */
  readonly source: string;
  /** The segments, with variables expanded; a request path must match them one by one. */
  readonly segments: readonly PathTemplateSegment[];
  /** The variables, in the order they appear. */
  readonly variables: readonly PathTemplateVariable[];
  /** The custom verb after the last `:`, as in `/v1/{name=books/*}:publish`. */
  readonly verb: string | undefined;
}

// http.proto leaves LITERAL undefined. These are the characters RFC 3986 allows in a path segment
// (section 3.3, `pchar`), without those the template syntax gives a meaning (`*`, `:`, `{`, `}`,
// `=`); a `%` must start a percent-encoded octet.
const literalPattern = /^(?:[A-Za-z0-9\-._~!$&'()+,;@]|%[0-9A-Fa-f]{2})+$/;
const identPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses a path template of a `google.api.http` rule.
 *
 * Throws an `Error` that quotes the template and says what is wrong with it: a missing leading
 * `/`, an empty segment, a nested variable, `**` anywhere but last, a field bound twice.
 */
export function parsePathTemplate(source: string): PathTemplate {
  const fail = (reason: string): never => {
    throw new Error(`invalid path template "${source}": ${reason}`);
  };
  if (!source.startsWith("/")) {
    fail('it must start with "/"');
  }
  const { path, verb } = splitVerb(source, fail);

  const segments: PathTemplateSegment[] = [];
  const variables: PathTemplateVariable[] = [];
  let i = 1;
  const parseSegments = (inVariable: boolean): void => {
    for (;;) {
      if (path[i] === "{") {
        if (inVariable) {
          fail("variables cannot be nested");
        }
        parseVariable();
      } else {
        const endOfSegment = findEndOfSegment(path, i);
        const text = path.slice(i, endOfSegment);
        i = endOfSegment;
        if (text === "*") {
          segments.push({ kind: "wildcard" });
        } else if (text === "**") {
          segments.push({ kind: "deep-wildcard" });
        } else if (text === "") {
          fail("it has an empty segment");
        } else if (!literalPattern.test(text)) {
          fail(`the segment "${text}" has characters a path segment cannot have`);
        } else {
          segments.push({ kind: "literal", value: decodeLiteral(text) });
        }
      }
      if (path[i] !== "/") {
        return;
      }
      i++;
    }
  };
  const parseVariable = (): void => {
    const close = path.indexOf("}", i);
    if (close < 0) {
      fail('a "{" is not closed');
    }
    const equals = path.indexOf("=", i);
    const hasPattern = equals >= 0 && equals < close;
    const fieldPathText = path.slice(i + 1, hasPattern ? equals : close);
    const fieldPath = fieldPathText.split(".");
    if (!fieldPath.every((name) => identPattern.test(name))) {
      fail(`"${fieldPathText}" is not a field path`);
    }
    if (variables.some((v) => v.fieldPath.join(".") === fieldPathText)) {
      fail(`the field "${fieldPathText}" is bound twice`);
    }
    const start = segments.length;
    if (hasPattern) {
      i = equals + 1;
      parseSegments(true);
      if (path[i] !== "}") {
        fail(`the variable "${fieldPathText}" is not closed where expected`);
      }
    } else {
      segments.push({ kind: "wildcard" });
      i = close;
    }
    i++; // "}"
    const end = segments.length;
    const captured = segments.slice(start, end);
    variables.push({
      fieldPath,
      pattern: hasPattern ? path.slice(equals + 1, i - 1) : "*",
      start,
      end,
      multiSegment: captured.length > 1 || captured[0]?.kind === "deep-wildcard",
    });
  };

  parseSegments(false);
  if (i !== path.length) {
    fail(`unexpected "${path[i]}" at position ${i}`);
  }
  // http.proto: "The syntax `**` matches zero or more path segments. It must be the last part of
  // the URL path except the `Verb`."
  const deep = segments.findIndex((s) => s.kind === "deep-wildcard");
  if (deep >= 0 && deep !== segments.length - 1) {
    fail('"**" must be the last segment');
  }
  return { source, segments, variables, verb };
}

/**
 * A template's path and its custom verb. The verb is what follows the last ":" outside a
 * variable: a variable's template cannot hold a ":", so the last ":" after the last "}" is the
 * verb separator.
 */
function splitVerb(source: string, fail: (reason: string) => never): { path: string; verb?: string } {
  const colon = source.lastIndexOf(":");
  if (colon <= source.lastIndexOf("}")) return { path: source };
  const verb = source.slice(colon + 1);
  if (!literalPattern.test(verb)) {
    fail(`the verb "${verb}" is empty or has characters a path segment cannot have`);
  }
  return { path: source.slice(0, colon), verb };
}

/**
 * The path of a template in the notation of OpenAPI path templating (OpenAPI 3.1, section 4.8.2):
 * each variable becomes `{field.path}` whatever it captures, so `/v1/{name=shelves/*}` is
 * `/v1/{name}`. A custom verb is kept (`/v1/{name}:publish`). Wildcards outside a variable have no
 * OpenAPI equivalent and stay as written.
 */
export function pathTemplateToOpenApiPath(template: PathTemplate): string {
  let path = "";
  let index = 0;
  for (const variable of template.variables) {
    path += segmentsToString(template.segments.slice(index, variable.start));
    path += `/{${variable.fieldPath.join(".")}}`;
    index = variable.end;
  }
  path += segmentsToString(template.segments.slice(index));
  return template.verb === undefined ? path : `${path}:${template.verb}`;
}

function segmentsToString(segments: readonly PathTemplateSegment[]): string {
  let text = "";
  for (const segment of segments) {
    text += segment.kind === "literal" ? `/${segment.value}` : segment.kind === "wildcard" ? "/*" : "/**";
  }
  return text;
}

function findEndOfSegment(path: string, from: number): number {
  let i = from;
  while (i < path.length && path[i] !== "/" && path[i] !== "}" && path[i] !== "{") {
    i++;
  }
  return i;
}

function decodeLiteral(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
