/**
 * The path templates of `google.api.http` rules (google/api/http.proto, "Path template syntax"),
 * as a client needs them: filled from a request, and matched against a request's path.
 */

/** A piece of a template: text sent as written, or a variable that a request field fills. */
export type TemplatePart =
  | { readonly kind: "literal"; readonly text: string }
  | {
      readonly kind: "variable";
      /** The field path the variable binds, in proto names: `["book", "name"]`. */
      readonly fieldPath: readonly string[];
      /** The variable's own template, `*` when none is given: `shelves/*`, `**`. */
      readonly pattern: string;
      /** Whether its value spans segments (`{name=shelves/*}`): its slashes then stay separators. */
      readonly multiSegment: boolean;
    };

/** Splits a template into its literal text and its variables. */
export function parsePathTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let rest = template;
  for (let open = rest.indexOf("{"); open >= 0; open = rest.indexOf("{")) {
    const close = rest.indexOf("}", open);
    if (close < 0) throw new Error(`invalid path template "${template}": a "{" is not closed`);
    if (open > 0) parts.push({ kind: "literal", text: rest.slice(0, open) });
    const [fieldPath = "", pattern = "*"] = rest.slice(open + 1, close).split("=");
    parts.push({
      kind: "variable",
      fieldPath: fieldPath.split("."),
      pattern,
      multiSegment: pattern.includes("/") || pattern === "**",
    });
    rest = rest.slice(close + 1);
  }
  if (rest !== "") parts.push({ kind: "literal", text: rest });
  return parts;
}

/**
 * The path of a template with the value of each variable (by its index) in place, percent-encoded per segment
 * (http.proto: a single-segment value has every reserved character encoded; a multi-segment
 * value keeps its slashes). Throws when a literal part holds a wildcard: no field fills it.
 */
export function fillPathTemplate(parts: readonly TemplatePart[], valueAt: (index: number) => string): string {
  let index = 0;
  return parts
    .map((part) => {
      if (part.kind === "literal") {
        if (part.text.split(/[/:]/).some((segment) => segment === "*" || segment === "**")) {
          throw new Error(`the path template has a wildcard outside a variable: "${part.text}"`);
        }
        return part.text;
      }
      const value = valueAt(index++);
      return part.multiSegment
        ? value.split("/").map(encodeURIComponent).join("/")
        : encodeURIComponent(value);
    })
    .join("");
}

/** A regular expression that matches the paths a template stands for (percent-encoded as sent). */
export function pathTemplatePattern(parts: readonly TemplatePart[]): RegExp {
  const source = parts
    .map((part) => (part.kind === "literal" ? segmentsPattern(part.text) : segmentsPattern(part.pattern)))
    .join("");
  return new RegExp(`^${source}$`);
}

/** `*` is one segment, `**` any number of them, anything else itself. */
function segmentsPattern(text: string): string {
  return text
    .split(/(\*\*|\*)/)
    .map((piece) =>
      piece === "**" ? ".*" : piece === "*" ? "[^/]+" : piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
}
