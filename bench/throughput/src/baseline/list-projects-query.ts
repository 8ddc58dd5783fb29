import { type FieldViolation, invalidArgument } from "./api-error.ts";

/** A ListProjects request as the query string sets it; unset text fields are "", as in proto3. */
export interface ListProjectsQuery {
  pageSize: number;
  pageToken: string;
  namePrefix: string;
  city: string;
  country: string;
  postalCode: string;
}

type Field = keyof ListProjectsQuery;

/** Query parameters by JSON name and by proto name, as Folio's transcoder accepts both. */
const FIELDS = new Map<string, Field>([
  ["pageSize", "pageSize"],
  ["page_size", "pageSize"],
  ["pageToken", "pageToken"],
  ["page_token", "pageToken"],
  ["namePrefix", "namePrefix"],
  ["name_prefix", "namePrefix"],
  ["city", "city"],
  ["country", "country"],
  ["postalCode", "postalCode"],
  ["postal_code", "postalCode"],
]);

const INT32 = /^-?\d{1,10}$/;

/**
 * Reads the query string of `GET /api/v1/projects` with the transcoder's rules: unknown
 * parameters, a field set twice and a page size that is not an int32 are `invalid_argument`,
 * every one named. This is decoding, so it runs before authentication, as in Folio.
 */
export function parseListProjectsQuery(search: string): ListProjectsQuery {
  const query: ListProjectsQuery = {
    pageSize: 0,
    pageToken: "",
    namePrefix: "",
    city: "",
    country: "",
    postalCode: "",
  };
  if (search === "") return query;
  const violations: FieldViolation[] = [];
  const seen = new Set<Field>();
  for (const [name, value] of new URLSearchParams(search)) {
    const field = FIELDS.get(name);
    if (field === undefined) {
      violations.push({
        field: name,
        description: `unknown query parameter: folio.v1.ListProjectsRequest has no field "${name}"`,
      });
      continue;
    }
    if (seen.has(field)) {
      violations.push({ field: name, description: "set more than once, but the field is not repeated" });
      continue;
    }
    seen.add(field);
    if (field !== "pageSize") {
      query[field] = value;
      continue;
    }
    const n = Number(value);
    if (!INT32.test(value)) {
      violations.push({ field: name, description: `invalid integer: "${value}"` });
    } else if (n < -2147483648 || n > 2147483647) {
      violations.push({ field: name, description: `integer out of range: "${value}"` });
    } else {
      query.pageSize = n;
    }
  }
  if (violations.length > 0) throw invalidArgument(violations);
  return query;
}

/**
 * The checks of ListProjects after authentication, as Folio's service makes them: no NUL in a text
 * filter (PostgreSQL text cannot hold it), no negative page size.
 */
export function validateListProjectsQuery(query: ListProjectsQuery): void {
  const nul = (["namePrefix", "city", "country", "postalCode"] as const).filter((field) =>
    query[field].includes("\0"),
  );
  if (nul.length > 0) {
    throw invalidArgument(
      nul.map((field) => ({ field, description: "must not contain the NUL character (U+0000)" })),
    );
  }
  if (query.pageSize < 0) {
    throw invalidArgument([{ field: "pageSize", description: "must not be negative" }]);
  }
}
