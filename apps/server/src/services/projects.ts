import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@folio/auth";
import type { Db, Project } from "@folio/db";
import { ListProjectsResponseSchema, ProjectSchema, type ProjectService } from "@folio/proto";

/** ProjectService backed by the `projects` table; every query is scoped by the caller's org. */
export function createProjectService(db: Db): ServiceImpl<typeof ProjectService> {
  return {
    async listProjects(_request, context) {
      const caller = requireCaller(context);
      const projects = await db.prisma.project.findMany({
        where: { orgId: caller.orgId },
        orderBy: [{ name: "asc" }, { id: "asc" }],
      });
      return create(ListProjectsResponseSchema, { projects: projects.map(toMessage) });
    },
  };
}

function toMessage(project: Project) {
  return create(ProjectSchema, {
    id: project.id,
    orgId: project.orgId,
    name: project.name,
    street: project.street ?? undefined,
    houseNumber: project.houseNumber ?? undefined,
    postalCode: project.postalCode ?? undefined,
    city: project.city ?? undefined,
    country: project.country ?? undefined,
    createdAt: timestampFromDate(project.createdAt),
  });
}
