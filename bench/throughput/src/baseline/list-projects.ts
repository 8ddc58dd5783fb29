import type pg from "pg";
import { invalidArgument } from "./api-error.ts";
import type { ListProjectsQuery } from "./list-projects-query.ts";
import type { PageTokens } from "./page-token.ts";
import { rfc3339 } from "./timestamp.ts";

/** Page size when the request names none, and the largest served (Folio's MAX_PAGE_SIZE). */
export const MAX_PAGE_SIZE = 1000;

/** A row of `projects` as the page query reads it. */
export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  street: string | null;
  house_number: string | null;
  postal_code: string | null;
  city: string | null;
  country: string | null;
  created_at: Date;
}

/** A page of projects: the REST body, and the token of the next page when there is one. */
export interface ProjectPage {
  readonly body: string;
  readonly nextPageToken: string | undefined;
}

/** A page of projects as read from the database, for whichever encoding to write. */
export interface ProjectRows {
  readonly rows: readonly ProjectRow[];
  readonly nextPageToken: string | undefined;
}

/** One page of the org's projects as REST JSON (see {@link projectRows}). */
export async function listProjects(
  pool: pg.Pool,
  tokens: PageTokens,
  orgId: string,
  query: ListProjectsQuery,
): Promise<ProjectPage> {
  const page = await projectRows(pool, tokens, orgId, query);
  return {
    body: JSON.stringify({ projects: page.rows.map(projectJson) }),
    nextPageToken: page.nextPageToken,
  };
}

/**
 * One page of the org's projects in `(name, id)` order, read by key after the page token's cursor
 * (the query Folio runs, served by the `(org_id, name, id)` index), one row more than the page to
 * tell whether another follows.
 */
export async function projectRows(
  pool: pg.Pool,
  tokens: PageTokens,
  orgId: string,
  query: ListProjectsQuery,
): Promise<ProjectRows> {
  const pageSize = query.pageSize === 0 ? MAX_PAGE_SIZE : Math.min(query.pageSize, MAX_PAGE_SIZE);
  const binding = JSON.stringify([orgId, query.namePrefix, query.city, query.country, query.postalCode]);
  const values: unknown[] = [orgId];
  const conditions = ["org_id = $1::uuid"];
  const filter = (sql: (n: number) => string, value: string) => {
    values.push(value);
    conditions.push(sql(values.length));
  };
  if (query.namePrefix) filter((n) => `starts_with(name, $${n})`, query.namePrefix);
  if (query.city) filter((n) => `city = $${n}`, query.city);
  if (query.country) filter((n) => `country = $${n}`, query.country);
  if (query.postalCode) filter((n) => `postal_code = $${n}`, query.postalCode);
  if (query.pageToken !== "") {
    const after = tokens.decode(query.pageToken, binding);
    if (after === undefined) {
      throw invalidArgument([
        {
          field: "pageToken",
          description:
            "is not a token of this listing (malformed, altered, or issued for another organisation or filter)",
        },
      ]);
    }
    values.push(after.name, after.id);
    conditions.push(`(name, id) > ($${values.length - 1}, $${values.length}::uuid)`);
  }
  values.push(pageSize + 1);
  const { rows } = await pool.query<ProjectRow>(
    `SELECT id, org_id, name, street, house_number, postal_code, city, country, created_at
       FROM projects WHERE ${conditions.join(" AND ")} ORDER BY name, id LIMIT $${values.length}`,
    values,
  );
  const page = rows.length > pageSize ? rows.slice(0, pageSize) : rows;
  const last = page[page.length - 1];
  return {
    rows: page,
    nextPageToken:
      rows.length > pageSize && last !== undefined
        ? tokens.encode({ name: last.name, id: last.id }, binding)
        : undefined,
  };
}

/** A project as Folio's REST responses hold it: every field, in the proto's order, null when absent. */
function projectJson(row: ProjectRow) {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    street: row.street,
    houseNumber: row.house_number,
    postalCode: row.postal_code,
    city: row.city,
    country: row.country,
    createdAt: rfc3339(row.created_at),
  };
}

/**
 * The `Link` header of the next page: the request's own path and query with `pageToken` set (a
 * `page_token` removed), as Folio's transcoder writes it.
 */
export function nextPageLink(path: string, search: string, token: string): string {
  const query = new URLSearchParams(search);
  query.delete("page_token");
  query.set("pageToken", token);
  return `<${path}?${query.toString()}>; rel="next"`;
}
