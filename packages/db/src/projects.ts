import { Prisma, type Project } from "./gen/prisma/client.js";
import type { SqlRunner } from "./sql-runner.js";

/** Filters of a project listing; an absent filter matches every project. */
export interface ProjectFilters {
  /** Literal, case-sensitive prefix of the name. */
  readonly namePrefix?: string;
  readonly city?: string;
  readonly country?: string;
  readonly postalCode?: string;
}

/** One page of an org's projects in `(name, id)` order. */
export interface ProjectPageQuery extends ProjectFilters {
  readonly orgId: string;
  /** Start after this project (keyset paging); absent: from the first. */
  readonly after?: { readonly name: string; readonly id: string };
  readonly limit: number;
}

/** A project to insert; `id` and `createdAt` default in the database. */
export type NewProject = Omit<Prisma.ProjectCreateManyInput, "createdAt">;

/**
 * A project as a page reads it: the model's fields, with `createdAt` as milliseconds since the
 * epoch (truncated, as a `Date` would hold it).
 */
export interface ProjectRecord extends Omit<Project, "createdAt"> {
  readonly createdAtMs: number;
}

/** Project queries. */
export interface ProjectQueries {
  /**
   * Up to `limit` projects of the org in `(name, id)` order, after `after`. The row comparison
   * `(name, id) > (...)` is served by the `(org_id, name, id)` index, so a deep page costs what the
   * first does; Prisma's model API can only express it as an OR, which the planner serves worse.
   */
  page(query: ProjectPageQuery): Promise<ProjectRecord[]>;
  /** True when the table holds no project of any org. */
  isEmpty(): Promise<boolean>;
  /** Inserts projects (loads and demo data; the API itself never creates projects). */
  insert(projects: readonly NewProject[]): Promise<number>;
}

/**
 * Project queries: the page is SQL run by `sql`, the rest Prisma's model API on `client` (each on
 * the pool, or both in one transaction).
 */
export function projectQueries(sql: SqlRunner, client: Prisma.TransactionClient): ProjectQueries {
  return {
    async page(query) {
      const conditions = [Prisma.sql`org_id = ${query.orgId}::uuid`];
      if (query.namePrefix) conditions.push(Prisma.sql`starts_with(name, ${query.namePrefix})`);
      if (query.city) conditions.push(Prisma.sql`city = ${query.city}`);
      if (query.country) conditions.push(Prisma.sql`country = ${query.country}`);
      if (query.postalCode) conditions.push(Prisma.sql`postal_code = ${query.postalCode}`);
      if (query.after) {
        conditions.push(Prisma.sql`(name, id) > (${query.after.name}, ${query.after.id}::uuid)`);
      }
      // Each column named as the record's field, so that pg's rows are the records: a page of
      // 1000 is read into one shape, not copied into a second. created_at as a number of
      // milliseconds: pg's parse of a timestamptz's text (a regular expression and calendar
      // arithmetic per value) was 8% of the CPU of a 1000-row page.
      return sql.rows<ProjectRecord>(
        "SELECT projects",
        Prisma.sql`
          SELECT id, org_id AS "orgId", name, street, house_number AS "houseNumber",
            postal_code AS "postalCode", city, country,
            floor(extract(epoch FROM created_at) * 1000)::float8 AS "createdAtMs"
          FROM projects
          WHERE ${Prisma.join(conditions, " AND ")}
          ORDER BY name, id
          LIMIT ${query.limit}`,
      );
    },
    async isEmpty() {
      return (await client.project.findFirst({ select: { id: true } })) === null;
    },
    async insert(projects) {
      return (await client.project.createMany({ data: [...projects] })).count;
    },
  };
}
