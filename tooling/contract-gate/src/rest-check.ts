import type { OpenApiDocument } from "@folio/openapi";
import { apiCompare } from "api-smart-diff";

/** The changes from one REST surface to another, as the gate judges them. */
export interface RestComparison {
  /** The incompatible changes, one line each, naming what broke and where. */
  readonly breaking: string[];
  /** How many compatible changes there are (additions, descriptions). */
  readonly compatible: number;
}

/**
 * Compares the REST surface `before` with `after` (two OpenAPI documents). api-smart-diff
 * classifies each change with OpenAPI rules of its own, from what a request may no longer send
 * and what a response may no longer hold: a removed path, method, parameter or response code, a
 * parameter or request field made required, a changed type, a tightened constraint are
 * breaking; additions a client need not know of (an optional field, a new operation) are not.
 * Why api-smart-diff: openapi-diff refuses OpenAPI 3.1 documents (its parser stops at 3.0.3), and
 * Optic's breaking-change rules come with its CLI rather than a library. A change inside a
 * response schema is reported both where an operation uses it and under `components.schemas`;
 * the latter is the one classified breaking for a changed type, so both are kept.
 */
export function compareRest(before: OpenApiDocument, after: OpenApiDocument): RestComparison {
  const { diffs } = apiCompare(before, after);
  const breaking = diffs.filter((diff) => diff.type === "breaking");
  return {
    breaking: breaking.map((diff) => {
      const at = diff.path.map(String).join(".");
      return diff.description === undefined ? `${diff.action} at ${at}` : `${diff.description} (at ${at})`;
    }),
    compatible: diffs.length - breaking.length,
  };
}

/** The incompatible changes from the REST surface `before` to `after`, one line each. */
export function restBreakingChanges(before: OpenApiDocument, after: OpenApiDocument): string[] {
  return compareRest(before, after).breaking;
}
