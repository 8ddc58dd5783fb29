import { type FieldViolation, invalidArgument } from "@folio/googleapis";
import type { ListProjectsRequest } from "@folio/proto";

/** The text filters of ListProjects, by their JSON (REST query) names. */
const TEXT_FILTERS = ["namePrefix", "city", "country", "postalCode"] as const;

/**
 * Refuses ListProjects filters no stored text can match: PostgreSQL text cannot hold U+0000, so a
 * filter with it would fail in the database instead of matching nothing. Throws
 * `invalid_argument` naming every such filter.
 */
export function validateListProjectsFilters(request: ListProjectsRequest): void {
  const violations: FieldViolation[] = TEXT_FILTERS.filter((field) => request[field].includes("\0")).map(
    (field) => ({ field, description: "must not contain the NUL character (U+0000)" }),
  );
  if (violations.length > 0) throw invalidArgument(violations);
}
