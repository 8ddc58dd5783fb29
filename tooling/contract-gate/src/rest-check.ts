import type { OpenApiDocument } from "@folio/openapi";
import { apiCompare } from "api-smart-diff";

/**
 * The incompatible changes from the REST surface `before` to `after` (two OpenAPI documents),
 * one line each, naming what broke and where: a removed path, method, parameter or response code,
 * a parameter or request field made required, a changed type. api-smart-diff classifies them
 * with the OpenAPI rules of its own (what a request may no longer send, what a response may no
 * longer hold); additions a client need not know of (an optional field, a new operation) are
 * not breaking.
 */
export function restBreakingChanges(before: OpenApiDocument, after: OpenApiDocument): string[] {
  const { diffs } = apiCompare(before, after);
  return diffs
    .filter((diff) => diff.type === "breaking")
    .map((diff) => {
      const at = diff.path.map(String).join(".");
      return diff.description === undefined ? `${diff.action} at ${at}` : `${diff.description} (at ${at})`;
    });
}

/** How many changes from `before` to `after` are compatible ones (additions, descriptions). */
export function restCompatibleChangeCount(before: OpenApiDocument, after: OpenApiDocument): number {
  return apiCompare(before, after).diffs.filter((diff) => diff.type !== "breaking").length;
}
