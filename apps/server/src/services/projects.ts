import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@folio/auth";
import { type Db, Prisma } from "@folio/db";
import {
  type ListProjectsRequest,
  ListProjectsResponseSchema,
  ProjectSchema,
  type ProjectService,
} from "@folio/proto";
import type { PageTokens } from "../page-token.js";
import { invalidArgument } from "./invalid-argument.js";

/** Page size when the request names none, and the largest one served. */
export const MAX_PAGE_SIZE = 1000;

interface ProjectRow {
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

/**
 * ProjectService backed by the `projects` table; every query is scoped by the caller's org.
 * Pages are read by key, `(name, id) > (last name, last id)`, which the (org_id, name, id) index
 * serves directly: a deep page costs what the first one does, unlike OFFSET.
 */
export function createProjectService(db: Db, pageTokens: PageTokens): ServiceImpl<typeof ProjectService> {
  return {
    async listProjects(request, context) {
      const caller = requireCaller(context);
      if (request.pageSize < 0) {
        throw invalidArgument([{ field: "pageSize", description: "must not be negative" }]);
      }
      // AIP-158: a size above the maximum is served as the maximum, not refused.
      const pageSize = request.pageSize === 0 ? MAX_PAGE_SIZE : Math.min(request.pageSize, MAX_PAGE_SIZE);
      const binding = bindingOf(caller.orgId, request);
      let after: { name: string; id: string } | undefined;
      if (request.pageToken !== "") {
        after = pageTokens.decode(request.pageToken, binding);
        if (after === undefined) {
          throw invalidArgument([
            {
              field: "pageToken",
              description:
                "is not a token of this listing (malformed, altered, or issued for another organisation or filter)",
            },
          ]);
        }
      }

      const conditions = [Prisma.sql`org_id = ${caller.orgId}::uuid`];
      if (request.namePrefix !== "") conditions.push(Prisma.sql`starts_with(name, ${request.namePrefix})`);
      if (request.city !== "") conditions.push(Prisma.sql`city = ${request.city}`);
      if (request.country !== "") conditions.push(Prisma.sql`country = ${request.country}`);
      if (request.postalCode !== "") conditions.push(Prisma.sql`postal_code = ${request.postalCode}`);
      if (after !== undefined) conditions.push(Prisma.sql`(name, id) > (${after.name}, ${after.id}::uuid)`);
      // One row more than the page tells whether another page follows.
      const rows = await db.prisma.$queryRaw<ProjectRow[]>`
        SELECT id, org_id, name, street, house_number, postal_code, city, country, created_at
        FROM projects
        WHERE ${Prisma.join(conditions, " AND ")}
        ORDER BY name, id
        LIMIT ${pageSize + 1}`;
      const page = rows.slice(0, pageSize);
      const last = page[page.length - 1];
      const nextPageToken =
        rows.length > pageSize && last !== undefined
          ? pageTokens.encode({ name: last.name, id: last.id }, binding)
          : "";
      return create(ListProjectsResponseSchema, { projects: page.map(toMessage), nextPageToken });
    },
  };
}

/** What a page token is valid for: the org and the filters (not the page size, which may change). */
function bindingOf(orgId: string, request: ListProjectsRequest): string {
  return JSON.stringify([orgId, request.namePrefix, request.city, request.country, request.postalCode]);
}

function toMessage(project: ProjectRow) {
  return create(ProjectSchema, {
    id: project.id,
    orgId: project.org_id,
    name: project.name,
    street: project.street ?? undefined,
    houseNumber: project.house_number ?? undefined,
    postalCode: project.postal_code ?? undefined,
    city: project.city ?? undefined,
    country: project.country ?? undefined,
    createdAt: timestampFromDate(project.created_at),
  });
}
